import { Inject, type Type } from '@nestjs/common';
import { CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../common/cli/options';
import { USER_NAME } from './user-name.option';
import { UsersService } from './users.service';

/** A `users` sub-command about one existing user, described as data. */
export interface ExistingUserCommandSpec<S> {
  /** The class's name, as Nest's errors and stack traces show it. */
  readonly className: string;
  readonly name: string;
  readonly description: string;
  /** The work, once the user is known to exist; what it returns is printed as one line of text. */
  readonly act: (service: S, name: string, users: UsersService) => Promise<string>;
}

/**
 * The class of a `users` sub-command about the existing user named by `--name`: a name that is no
 * user fails before anything is done or asked (a typo fails before the typing of a password), then
 * `act` runs with `service` injected (by `@Inject`, as a built class has no constructor types to
 * reflect).
 */
export function existingUserCommand<S>(
  service: abstract new (...args: never[]) => S,
  { className, act, ...meta }: ExistingUserCommandSpec<S>,
): Type<CommandRunner> {
  class ExistingUserCommand extends CommandRunner {
    constructor(
      private readonly users: UsersService,
      private readonly service: S,
    ) {
      super();
    }

    async run(_args: string[], options: { name: string }): Promise<void> {
      await this.users.assertExists(options.name);
      const done = await act(this.service, options.name, this.users);
      process.stdout.write(`${done}\n`);
    }
  }
  Object.defineProperty(ExistingUserCommand, 'name', { value: className });
  Inject(UsersService)(ExistingUserCommand, undefined, 0);
  Inject(service)(ExistingUserCommand, undefined, 1);
  Options(USER_NAME)(ExistingUserCommand);
  SubCommand(meta)(ExistingUserCommand);
  return ExistingUserCommand;
}
