import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { toIsoSeconds } from '../common/timestamps';
import { UsersService } from './users.service';

@SubCommand({ name: 'create', description: 'Create a user; prints it as one JSON line' })
export class CreateUserCommand extends CommandRunner {
  constructor(private readonly users: UsersService) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    const user = await this.users.create(options.name);
    process.stdout.write(
      `${JSON.stringify({ id: user.id, name: user.name, joined_at: toIsoSeconds(user.createdAt) })}\n`,
    );
  }

  @Option({ flags: '--name <name>', description: 'Unique user name', required: true })
  parseName(value: string): string {
    return value;
  }
}

@Command({ name: 'users', description: 'Manage users', subCommands: [CreateUserCommand] })
export class UsersCommand extends CommandRunner {
  run(): Promise<void> {
    this.command.help();
  }
}
