import { readFile } from 'node:fs/promises';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { parseCatalogFile } from './catalog-file';
import { CatalogService } from './catalog.service';

@SubCommand({
  name: 'import',
  arguments: '<file>',
  description:
    'Import a JSON array of titles: creates new ones, updates changed ones, all or nothing',
})
export class ImportCatalogCommand extends CommandRunner {
  constructor(private readonly catalog: CatalogService) {
    super();
  }

  async run([file]: string[]): Promise<void> {
    const records = parseCatalogFile(await readFile(file, 'utf8'));
    const summary = await this.catalog.import(records);
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  }
}

@Command({
  name: 'catalog',
  description: 'Manage the title catalog',
  subCommands: [ImportCatalogCommand],
})
export class CatalogCommand extends CommandRunner {
  run(): Promise<void> {
    this.command.help();
  }
}
