import { readFile } from 'node:fs/promises';
import { CommandGroup } from '../cli/command-group';
import { printJsonLine } from '../cli/output';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../cli/options';
import { CatalogFileError, parseCatalogFile } from './catalog-file';
import { CatalogService } from './catalog.service';

const CATALOG_FORMATS = ['json', 'anime-offline-database'] as const;
type CatalogFormat = (typeof CATALOG_FORMATS)[number];

@SubCommand({
  name: 'import',
  arguments: '<file>',
  description:
    'Import titles: a JSON array of titles (default: all or nothing), or with --format anime-offline-database the anime of a manami-project anime-offline-database file (JSON or gzip)',
})
@Options({
  flags: '--format <format>',
  description: 'json (default): a JSON array of titles; anime-offline-database',
  parse: (value): CatalogFormat => {
    if (!(CATALOG_FORMATS as readonly string[]).includes(value)) {
      throw new CatalogFileError(
        `--format must be one of ${CATALOG_FORMATS.join(', ')}, not "${value}"`,
      );
    }
    return value as CatalogFormat;
  },
})
export class ImportCatalogCommand extends CommandRunner {
  constructor(private readonly catalog: CatalogService) {
    super();
  }

  async run([file]: string[], options: { format?: CatalogFormat }): Promise<void> {
    const summary =
      options.format === 'anime-offline-database'
        ? await this.catalog.importOfflineDatabase(file)
        : await this.catalog.import(parseCatalogFile(await readFile(file, 'utf8')));
    printJsonLine(summary);
  }
}

@Command({
  name: 'catalog',
  description: 'Manage the title catalog',
  subCommands: [ImportCatalogCommand],
})
export class CatalogCommand extends CommandGroup {}
