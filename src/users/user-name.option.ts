import type { CommandOption } from '../common/cli/options';

/** `--name`: the existing user a `users` sub-command is about. */
export const USER_NAME: CommandOption = {
  flags: '--name <name>',
  description: 'Name of the user',
  required: true,
};
