import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { AccountErasure } from './account-erasure';
import { AccountExport } from './account-export';

@SubCommand({
  name: 'delete',
  description:
    "Erase a user: entries (webhooks get rating.deleted for each), tokens, authorizations, sync deletions, undelivered webhook events; the identity provider's pairs stay blocked",
})
export class DeleteUserCommand extends CommandRunner {
  constructor(private readonly erasure: AccountErasure) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    process.stdout.write(`${JSON.stringify(await this.erasure.erase(options.name))}\n`);
  }

  @Option({ flags: '--name <name>', description: 'Name of the user', required: true })
  parseName(value: string): string {
    return value;
  }
}

@SubCommand({
  name: 'export',
  description:
    'Print everything stored about a user as one JSON document: the user, both lists, the profile, the clients they authorized',
})
export class ExportUserCommand extends CommandRunner {
  constructor(private readonly exporter: AccountExport) {
    super();
  }

  async run(_args: string[], options: { name: string }): Promise<void> {
    process.stdout.write(`${JSON.stringify(await this.exporter.export(options.name))}\n`);
  }

  @Option({ flags: '--name <name>', description: 'Name of the user', required: true })
  parseName(value: string): string {
    return value;
  }
}
