import { CommandRunner, Option } from 'nest-commander';

/**
 * A `users` sub-command about one existing user, named by `--name`. nest-commander lists a
 * subclass's own options before the inherited `--name`, so a command with options of its own that
 * must come after `--name` in its help declares `--name` itself.
 */
export abstract class UserCommand extends CommandRunner {
  @Option({ flags: '--name <name>', description: 'Name of the user', required: true })
  parseName(value: string): string {
    return value;
  }
}
