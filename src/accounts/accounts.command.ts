import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { printJsonLine } from '../cli/output';
import { UserCommand } from '../users/user.command';
import { AccountErasure } from './account-erasure';
import { AccountExport } from './account-export';
import { writePrivateFile } from './private-file';

@SubCommand({
  name: 'delete',
  description:
    "Erase a user: entries (webhooks get rating.deleted for each), tokens, authorizations, sync deletions, undelivered webhook events; the identity provider's pairs stay blocked",
})
export class DeleteUserCommand extends UserCommand {
  constructor(private readonly erasure: AccountErasure) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    printJsonLine(await this.erasure.erase(options.name));
  }
}

@SubCommand({
  name: 'export',
  description:
    'Print everything stored about a user as one JSON document (or write it to --output FILE): the user, every list, the profile, the clients they authorized',
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

  @Option({ flags: '--name <name>', description: 'Name of the user', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--output <file>',
    description:
      'Write the document to this file instead, readable by its owner only (mode 0600), replacing it at once when complete',
  })
  parseOutput(value: string): string {
    if (value === '') throw new Error('--output needs a file name');
    return value;
  }
}
