import { CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../common/cli/options';
import { serviceCommand } from '../common/cli/service-command';
import { USER_NAME } from '../users/user-name.option';
import { AccountErasure } from './account-erasure';
import { AccountExport } from './account-export';
import { writePrivateFile } from './private-file';

export const DeleteUserCommand = serviceCommand(AccountErasure, {
  className: 'DeleteUserCommand',
  name: 'delete',
  description:
    "Erase a user: entries (webhooks get rating.deleted for each), tokens, authorizations, sync deletions, undelivered webhook events; the identity provider's pairs stay blocked",
  options: [USER_NAME],
  run: (erasure, options: { name: string }) => erasure.erase(options.name),
});

@SubCommand({
  name: 'export',
  description:
    'Print everything stored about a user as one JSON document (or write it to --output FILE): the user, every list, the profile, the clients they authorized',
})
@Options(USER_NAME, {
  flags: '--output <file>',
  description:
    'Write the document to this file instead, readable by its owner only (mode 0600), replacing it at once when complete',
  parse: (value) => {
    if (value === '') throw new Error('--output needs a file name');
    return value;
  },
})
export class ExportUserCommand extends CommandRunner {
  constructor(private readonly exporter: AccountExport) {
    super();
  }

  async run(_args: string[], options: { name: string; output?: string }): Promise<void> {
    const document = `${JSON.stringify(await this.exporter.export(options.name))}\n`;
    if (options.output === undefined) process.stdout.write(document);
    else await writePrivateFile(options.output, document);
  }
}
