import { CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../cli/options';
import { USER_NAME } from '../users/user-name.option';
import { UsersService } from '../users/users.service';
import { SignInResets } from './sign-in-resets';

@SubCommand({
  name: 'reset-sign-in',
  description:
    "Reset a user's sign-in throttle (consent page): the attempts counted so far no longer count, on every instance",
})
@Options(USER_NAME)
export class ResetSignInCommand extends CommandRunner {
  constructor(
    private readonly users: UsersService,
    private readonly resets: SignInResets,
  ) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    await this.users.assertExists(options.name);
    await this.resets.reset(options.name);
    process.stdout.write('sign-in throttle reset\n');
  }
}
