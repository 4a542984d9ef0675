import { readFile } from 'node:fs/promises';
import { CommandGroup } from '../common/cli/command-group';
import { Command } from 'nest-commander';
import { serviceCommand } from '../common/cli/service-command';
import { CatalogFileError, parseCatalogFile } from './catalog-file';
import { CatalogService } from './catalog.service';

const CATALOG_FORMATS = ['json', 'anime-offline-database'] as const;
type CatalogFormat = (typeof CATALOG_FORMATS)[number];

export const ImportCatalogCommand = serviceCommand(CatalogService, {
  className: 'ImportCatalogCommand',
  name: 'import',
  arguments: '<file>',
  description:
    'Import titles: a JSON array of titles (default: all or nothing), or with --format anime-offline-database the anime of a manami-project anime-offline-database file (JSON or gzip)',
  options: [
    {
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
    },
  ],
  run: async (catalog, options: { format?: CatalogFormat }, [file]) =>
    options.format === 'anime-offline-database'
      ? catalog.importOfflineDatabase(file)
      : catalog.import(parseCatalogFile(await readFile(file, 'utf8'))),
});

@Command({
  name: 'catalog',
  description: 'Manage the title catalog',
  subCommands: [ImportCatalogCommand],
})
export class CatalogCommand extends CommandGroup {}
