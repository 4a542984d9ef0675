import { CommandRunner } from 'nest-commander';

/**
 * A command that only groups sub-commands (`users`, `tokens`, …). Commander hands it whatever
 * word did not name one of them: that is a mistake, answered on stderr with exit code 1, where
 * printing the help would exit 0 and let a script carry on after a typo (`users nuke`).
 */
export abstract class CommandGroup extends CommandRunner {
  async run(args: string[]): Promise<void> {
    if (args.length === 0) {
      this.command.help();
    }
    const known = this.command.commands.map((command) => command.name()).join(', ');
    this.command.error(
      `error: unknown command '${args[0]}' for '${this.command.name()}' (commands: ${known})`,
      { exitCode: 1, code: 'commander.unknownCommand' },
    );
  }
}
