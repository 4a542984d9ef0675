import { Inject } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { CommandGroup } from '../common/cli/command-group';
import { Options } from '../common/cli/options';
import { printJsonLine } from '../common/cli/output';
import {
  type AppConfig,
  type DatabaseTarget,
  InvalidConfigError,
  loadConfig,
} from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { copyDatabase } from './database-copy';
import { describeDatabase } from '../database/describe-database';
import { buildTypeOrmOptions, type EntityList } from '../database/typeorm-options';

/** `--to` read by DATABASE_URL's rules. */
function targetOf(url: string): DatabaseTarget {
  if (url.trim() === '') throw new Error('--to needs the target database URL');
  try {
    return loadConfig({ ...process.env, DATABASE_URL: url }).database;
  } catch (error) {
    if (!(error instanceof InvalidConfigError)) throw error;
    throw new Error(
      error.problems.map((problem) => problem.replace('DATABASE_URL', '--to')).join('; '),
    );
  }
}

@SubCommand({
  name: 'copy',
  description:
    'Copy every table of the database of DATABASE_URL into a new, empty one (from SQLite to MariaDB, say), migrating it first; prints the rows copied per table as one JSON line. Stop the servers first: what they write meanwhile is not copied',
})
@Options({
  flags: '--to <url>',
  description:
    'The target, written as DATABASE_URL is: mysql://USER:PASSWORD@HOST:3306/NAME (a database created beforehand) or sqlite:PATH',
  required: true,
})
export class CopyDatabaseCommand extends CommandRunner {
  constructor(
    @InjectDataSource() private readonly source: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_args: string[], options: { to: string }): Promise<void> {
    const targetOptions = buildTypeOrmOptions(
      targetOf(options.to),
      this.source.options.entities as EntityList,
      this.config.databaseTimeoutMs,
    );
    const tables = await copyDatabase(this.source, targetOptions);
    printJsonLine({
      from: describeDatabase(this.source.options),
      to: describeDatabase(targetOptions),
      tables,
    });
  }
}

@Command({
  name: 'database',
  description: 'Move the data to another database',
  subCommands: [CopyDatabaseCommand],
})
export class DatabaseCommand extends CommandGroup {}
