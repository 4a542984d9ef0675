import { Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../common/cli/options';
import { startsWithGzipMagic } from '../common/cli/gzip-magic';
import { printJsonLine } from '../common/cli/output';
import type { MediaType } from '../media-types/media-type';
import { ProblemException } from '../common/problem';
import { UsersService } from '../users/users.service';
import { importBodyText } from './import-body';
import { MAL_LIST_TYPES } from './mal-format';
import { MalListsService } from './mal-lists.service';

/** "anime or manga" */
const MAL_TYPE_CHOICES = MAL_LIST_TYPES.map(({ mediaType }) => mediaType).join(' or ');

class ListsCommandError extends Error {}

interface ListOptions {
  user: string;
  mediaType: MediaType;
  out?: string;
}

/** The options both subcommands share (@Injectable so that Nest sees its constructor's types). */
@Injectable()
@Options(
  { flags: '--user <name>', description: 'Name of the user whose list it is', required: true },
  {
    flags: '--media-type <type>',
    description: MAL_TYPE_CHOICES,
    required: true,
    parse: (value): MediaType => {
      const listType = MAL_LIST_TYPES.find(({ mediaType }) => mediaType === value);
      if (!listType) {
        throw new ListsCommandError(`--media-type must be ${MAL_TYPE_CHOICES}, not "${value}"`);
      }
      return listType.mediaType;
    },
  },
)
abstract class ListCommand extends CommandRunner {
  constructor(
    protected readonly lists: MalListsService,
    private readonly users: UsersService,
  ) {
    super();
  }

  protected async userId(name: string): Promise<number> {
    const user = await this.users.findByName(name);
    if (!user) throw new ListsCommandError(`no user is named "${name}"`);
    return user.id;
  }
}

@SubCommand({
  name: 'export',
  description:
    "Write a user's list as a MyAnimeList XML export, to --out FILE or (only the XML) to standard output",
})
@Options({ flags: '--out <file>', description: 'Write the XML to this file' })
export class ExportListCommand extends ListCommand {
  async run(_args: string[], options: ListOptions): Promise<void> {
    const xml = await this.lists.export(await this.userId(options.user), options.mediaType);
    if (options.out) await writeFile(options.out, xml);
    else process.stdout.write(xml);
  }
}

@SubCommand({
  name: 'import',
  arguments: '<file>',
  description:
    "Import a MyAnimeList XML export (plain or gzip) into a user's list, as POST /v1/my/{mediaType}/import does; prints the JSON summary",
})
export class ImportListCommand extends ListCommand {
  async run([file]: string[], options: ListOptions): Promise<void> {
    const userId = await this.userId(options.user);
    const encoding = (await startsWithGzipMagic(file, (message) => new ListsCommandError(message)))
      ? 'gzip'
      : 'identity';
    try {
      const summary = await this.lists.import(
        userId,
        options.mediaType,
        importBodyText(createReadStream(file), encoding),
      );
      printJsonLine(summary);
    } catch (error) {
      // Where the endpoint answers 4xx, the command fails with the same reason.
      if (error instanceof ProblemException) throw new ListsCommandError(error.problem.detail);
      throw error;
    }
  }
}

@Command({
  name: 'lists',
  description: "Export and import users' lists in the MyAnimeList XML format",
  subCommands: [ExportListCommand, ImportListCommand],
})
export class ListsCommand extends CommandRunner {
  run(): Promise<void> {
    this.command.help();
  }
}
