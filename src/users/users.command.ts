import { CommandGroup } from '../cli/command-group';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { UnblockUserCommand } from '../auth/external-identities.command';
import { toIsoSeconds } from '../common/timestamps';
import { UsersService } from './users.service';

const MAX_STDIN_BYTES = 64 * 1024;

/**
 * The password from standard input, as `docker login --password-stdin` reads it: everything up to
 * EOF, without the one line break that `echo` or a file adds. Never from an argument, where it would
 * show in `ps` and the shell history.
 */
export async function readPasswordFromStdin(
  stdin: NodeJS.ReadableStream = process.stdin,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += buffer.length;
    if (size > MAX_STDIN_BYTES) throw new Error('the password on standard input is too long');
    chunks.push(buffer);
  }
  const password = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (password === '') throw new Error('no password on standard input');
  return password;
}

@SubCommand({ name: 'create', description: 'Create a user; prints it as one JSON line' })
export class CreateUserCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_args: string[], options: { name: string; passwordStdin?: boolean }): Promise<void> {
    const password = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const user = await this.users.create(options.name, password);
    process.stdout.write(
      `${JSON.stringify({ id: user.id, name: user.name, joined_at: toIsoSeconds(user.createdAt) })}\n`,
    );
  }

  @Option({ flags: '--name <name>', description: 'Unique user name', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--password-stdin',
    description: 'Read the password (8 to 1024 characters) from standard input',
  })
  parsePasswordStdin(): boolean {
    return true;
  }
}

@SubCommand({
  name: 'set-password',
  description: "Set or replace a user's password, read from standard input",
})
export class SetPasswordCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    await this.users.setPassword(options.name, await readPasswordFromStdin());
    process.stdout.write('password set\n');
  }

  @Option({ flags: '--name <name>', description: 'Name of the user', required: true })
  parseName(value: string): string {
    return value;
  }
}

@Command({
  name: 'users',
  description: 'Manage users',
  subCommands: [CreateUserCommand, SetPasswordCommand, UnblockUserCommand],
})
export class UsersCommand extends CommandGroup {}
