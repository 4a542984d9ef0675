import { CommandGroup } from '../common/cli/command-group';
import { printJsonLine } from '../common/cli/output';
import { serviceCommand } from '../common/cli/service-command';
import {
  Command,
  CommandRunner,
  InquirerService,
  Question,
  QuestionSet,
  SubCommand,
} from 'nest-commander';
import { DeleteUserCommand, ExportUserCommand } from './accounts.command';
import { UnblockUserCommand } from '../auth/external-identities.command';
import { ResetSignInCommand } from '../oauth/sign-in-resets.command';
import { toIsoSeconds } from '../common/timestamps';
import { Options } from '../common/cli/options';
import { existingUserCommand } from '../users/existing-user-command';
import { UsersService } from '../users/users.service';

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
@Options(
  { flags: '--name <name>', description: 'Unique user name', required: true },
  {
    flags: '--password-stdin',
    description: 'Read the password (8 to 1024 characters) from standard input',
  },
)
export class CreateUserCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_args: string[], options: { name: string; passwordStdin?: boolean }): Promise<void> {
    const password = options.passwordStdin ? await readPasswordFromStdin() : undefined;
    const user = await this.users.create(options.name, password);
    printJsonLine({ id: user.id, name: user.name, joined_at: toIsoSeconds(user.createdAt) });
  }
}

const NEW_PASSWORD = 'new-password';

/** The password asked on a terminal, twice, echoing nothing. */
@QuestionSet({ name: NEW_PASSWORD })
export class NewPasswordQuestions {
  @Question({ type: 'password', name: 'password', message: 'New password (8 to 1024 characters):' })
  parsePassword(value: string): string {
    return value;
  }

  @Question({ type: 'password', name: 'repeated', message: 'The same password again:' })
  parseRepeated(value: string): string {
    return value;
  }
}

/** The new password, asked twice on a terminal: both answers must be the same. */
async function askNewPassword(inquirer: InquirerService): Promise<string> {
  const { password, repeated } = await inquirer.ask<{ password: string; repeated: string }>(
    NEW_PASSWORD,
    undefined,
  );
  if (password !== repeated) throw new Error('the two passwords differ; nothing was changed');
  return password;
}

export const SetPasswordCommand = existingUserCommand(InquirerService, {
  className: 'SetPasswordCommand',
  name: 'set-password',
  description:
    "Set or replace a user's password: asked twice without echo on a terminal, else read from standard input",
  act: async (inquirer, name, users) => {
    const password = process.stdin.isTTY
      ? await askNewPassword(inquirer)
      : await readPasswordFromStdin();
    await users.setPassword(name, password);
    return 'password set';
  },
});

export const ListUsersCommand = serviceCommand(UsersService, {
  className: 'ListUsersCommand',
  name: 'list',
  description: 'List the users, one JSON line each: id, name, joined_at, has_password',
  run: (users) => users.list(),
});

@Command({
  name: 'users',
  description: 'Manage users',
  subCommands: [
    CreateUserCommand,
    ListUsersCommand,
    SetPasswordCommand,
    ExportUserCommand,
    DeleteUserCommand,
    ResetSignInCommand,
    UnblockUserCommand,
  ],
})
export class UsersCommand extends CommandGroup {}
