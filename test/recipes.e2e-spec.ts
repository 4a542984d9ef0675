import { spawnSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/*
 * The recipes of docs/extending.md, applied as written to a scratch copy of the project: the files
 * they show are taken from the page's code blocks (a block whose first line is `// path`), the
 * edits they describe are made to the lines the page names, and then the focused suites run in
 * the copy, on this run's database (SQLite, or the MariaDB of TEST_DATABASE_URL). A recipe that
 * no longer works as the page says fails here.
 */

const ROOT = join(__dirname, '..');
const PAGE = readFileSync(join(ROOT, 'docs', 'extending.md'), 'utf8');

/** The text of the page's section under the `## heading`. */
function section(heading: string): string {
  const start = PAGE.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`docs/extending.md has no section "${heading}"`);
  const end = PAGE.indexOf('\n## ', start + 1);
  return PAGE.slice(start, end < 0 ? undefined : end);
}

/** The section's ```ts blocks, without their indentation, by their first line. */
function codeBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const match of text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```$/gm)) {
    const indent = match[1].length;
    const lines = match[2].split('\n').map((line) => line.slice(indent));
    blocks.set(lines[0], lines.slice(1).join('\n'));
  }
  return blocks;
}

/** The block that makes a new file, `// path` on its first line. */
function documentedFile(text: string, path: string): string {
  const block = codeBlocks(text).get(`// ${path}`);
  if (block === undefined) throw new Error(`the recipe shows no file ${path}`);
  return block;
}

/** A copy of the project (its tracked and untracked, not ignored, files), sharing node_modules. */
function scratchCopy(): string {
  const copy = mkdtempSync(join(tmpdir(), 'ratings-recipe-'));
  const listed = spawnSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    try {
      mkdirSync(dirname(join(copy, file)), { recursive: true });
      cpSync(join(ROOT, file), join(copy, file));
    } catch (error) {
      // A file git lists but the work tree no longer has (deleted, not yet committed).
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  return copy;
}

function write(copy: string, path: string, text: string): void {
  mkdirSync(dirname(join(copy, path)), { recursive: true });
  writeFileSync(join(copy, path), text);
}

/** Replaces `from` (which must be there, once) in the copy's file. */
function edit(copy: string, path: string, from: string, to: string): void {
  const text = readFileSync(join(copy, path), 'utf8');
  if (text.split(from).length !== 2) throw new Error(`${path} does not hold once: ${from}`);
  writeFileSync(join(copy, path), text.replace(from, to));
}

/** Adds a migration class at the end of MIGRATIONS (they run in that order), as the recipes say. */
function registerMigration(copy: string, className: string, file: string): void {
  const path = join(copy, 'src', 'database', 'typeorm-options.ts');
  const text = readFileSync(path, 'utf8');
  const list = text.indexOf('export const MIGRATIONS = [');
  const end = text.indexOf('\n];', list);
  if (list < 0 || end < 0) throw new Error('typeorm-options.ts has no MIGRATIONS list');
  writeFileSync(
    path,
    `import { ${className} } from './migrations/${file}';\n` +
      `${text.slice(0, end)}\n  ${className},${text.slice(end)}`,
  );
}

/** Runs a command in the copy, with this run's database, outside this Jest. */
function run(copy: string, command: string, args: string[]): { status: number; output: string } {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(JEST|E2E_)/.test(name)),
  );
  const result = spawnSync(command, args, {
    cwd: copy,
    env,
    encoding: 'utf8',
    timeout: 8 * 60_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

function jest(copy: string, config: string, specs: string[]) {
  return run(copy, process.execPath, [
    join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js'),
    '--config',
    config,
    '--runInBand',
    ...specs,
  ]);
}

/** `npm run typecheck` in the copy: the sources and every spec compile. */
function typecheck(copy: string) {
  return run(copy, process.execPath, [
    join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    'tsconfig.json',
    '--noEmit',
  ]);
}

/** The Jest summary line, for a failure message short enough to read. */
function passed(result: { status: number; output: string }): string {
  return result.status === 0 ? 'passed' : result.output.slice(-6000);
}

describe('docs/extending.md, each recipe applied to a scratch copy', () => {
  const copies: string[] = [];
  const copy = () => {
    const made = scratchCopy();
    copies.push(made);
    return made;
  };

  afterAll(() => {
    for (const made of copies) rmSync(made, { recursive: true, force: true });
  });

  it('React to a rating change: the listener receives every write; a wrong payload does not compile', () => {
    const text = section('React to a rating change');
    const target = copy();
    const listener = 'src/extensions/rating-audit.listener.ts';
    write(target, listener, documentedFile(text, listener));
    expect(text).toContain("`AppModule`'s\n`providers`");
    edit(
      target,
      'src/app.module.ts',
      "import { WebhooksModule } from './webhooks/webhooks.module';",
      "import { WebhooksModule } from './webhooks/webhooks.module';\nimport { RatingAuditListener } from './extensions/rating-audit.listener';",
    );
    edit(
      target,
      'src/app.module.ts',
      '      providers: [\n',
      '      providers: [\n        RatingAuditListener,\n',
    );
    write(
      target,
      'test/recipe-listener.e2e-spec.ts',
      `import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { anime, createUserWithToken, importTitles, putEntry } from './factories';
import { api, useTestApp } from './utils/test-app';

describe('the recipe listener', () => {
  let app: NestFastifyApplication;
  useTestApp((created) => (app = created));

  it('hears each PUT and DELETE after it commits', async () => {
    const log = jest.spyOn(Logger.prototype, 'log');
    await importTitles(app, [anime(1)]);
    const { token } = await createUserWithToken(app);
    await putEntry(app, token, 'anime', 1);
    await api(app, token).delete('/v1/my/anime/1/ratings').expect(200);
    const lines = log.mock.calls.map(([message]) => String(message));
    expect(lines).toEqual(
      expect.arrayContaining(['rating created: anime 1', 'rating deleted: anime 1']),
    );
  });
});
`,
    );
    expect(passed(jest(target, 'test/jest-e2e.json', ['test/recipe-listener']))).toBe('passed');

    // The payload's type follows from the event's name: a listener of another shape is refused.
    write(
      target,
      'src/extensions/wrong.listener.ts',
      documentedFile(text, listener)
        .replace('RatingAuditListener', 'WrongListener')
        .replace(
          'onRatingChanged(change: ArgOf<typeof RATING_CHANGED_EVENT>): void {',
          'onRatingChanged(change: { kind: number }): void {',
        ),
    );
    const refused = typecheck(target);
    expect(refused.status).not.toBe(0);
    expect(refused.output).toContain('src/extensions/wrong.listener.ts');
  });

  it('Add a third media type: light novels are rated, validated, counted and documented', () => {
    const text = section('Add a third media type');
    const target = copy();
    const descriptor = 'src/media-types/light-novel.descriptor.ts';
    const migration = 'src/database/migrations/1900000000000-light-novels.ts';
    write(target, descriptor, documentedFile(text, descriptor));
    write(target, migration, documentedFile(text, migration));
    expect(text).toContain('`MEDIA_TYPE_DESCRIPTORS` (`src/media-types/registry.ts`)');
    edit(
      target,
      'src/media-types/registry.ts',
      'export const MEDIA_TYPE_DESCRIPTORS = [ANIME, MANGA] as const;',
      "import { LIGHT_NOVEL } from './light-novel.descriptor';\nexport const MEDIA_TYPE_DESCRIPTORS = [ANIME, MANGA, LIGHT_NOVEL] as const;",
    );
    expect(text).toContain('raises that constant (to 11 here)');
    edit(
      target,
      'src/media-types/media-type.ts',
      'export const MEDIA_TYPE_LENGTH = 5;',
      'export const MEDIA_TYPE_LENGTH = 11;',
    );
    registerMigration(target, 'LightNovels1900000000000', '1900000000000-light-novels');
    write(
      target,
      'test/recipe-media-type.e2e-spec.ts',
      `import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createUserWithToken, importTitles } from './factories';
import { api, useTestApp } from './utils/test-app';

describe('light novels', () => {
  let app: NestFastifyApplication;
  useTestApp((created) => (app = created));

  it('are rated, read, validated, counted and documented', async () => {
    await importTitles(app, [
      { mediaType: 'light_novel', id: 1, externalId: 70, title: 'Spice and Wolf',
        episodes: null, episodeMinutes: null, chapters: null, volumes: 24 },
    ]);
    const { token } = await createUserWithToken(app);
    const client = api(app, token);
    await client
      .put('/v1/my/light_novel/1/ratings', { status: 'ongoing', volumes_read: 3, public_rating: 8 })
      .expect(200);
    const read = await client.get('/v1/my/light_novel/1/ratings').expect(200);
    expect(read.body[0]).toMatchObject({ id: 1, title: 'Spice and Wolf', volumes_read: 3, is_rereading: false });
    const tooMany = await client
      .put('/v1/my/light_novel/1/ratings', { status: 'ongoing', volumes_read: 25 })
      .expect(400);
    expect(tooMany.body.errors).toEqual([
      { field: 'volumes_read', message: "must be at most 24, the title's volume count" },
    ]);
    const other = await client
      .put('/v1/my/light_novel/1/ratings', { status: 'ongoing', episodes_watched: 1 })
      .expect(400);
    expect(other.body.errors[0].message).toBe('is an anime field; light_novel entries do not have it');
    const profile = await client.get('/v1/my/profile').expect(200);
    expect(profile.body.statistics.light_novel).toEqual({
      reading: 1, completed: 0, on_hold: 0, dropped: 0, bookmark: 0, average: 80, volumes: 3,
    });
    const document = await api(app).get('/docs/openapi.json').expect(200);
    expect(Object.keys(document.body.components.schemas.PutLightNovelRatingDto.properties)).toContain('volumes_read');
  });
});
`,
    );
    expect(passed(typecheck(target))).toBe('passed');
    const specs = ['test/recipe-media-type', 'test/migrations.e2e'];
    expect(passed(jest(target, 'test/jest-e2e.json', specs))).toBe('passed');
    expect(passed(jest(target, 'jest.config.js', []))).toBe('passed');
  });

  it('Add a field to entries: one line and a migration, and the ratings suite passes unedited', () => {
    const text = section('Add a field to entries');
    const target = copy();
    const line = codeBlocks(text).get('// in ENTRY_COLUMNS, after `priority`');
    if (!line) throw new Error('the recipe shows no line for ENTRY_COLUMNS');
    const migration = 'src/database/migrations/1900000000001-favorites.ts';
    write(target, migration, documentedFile(text, migration));
    edit(
      target,
      'src/media-types/entry-columns.ts',
      '] as const satisfies readonly EntryColumn[];',
      `  ${line.trim().replace(/,$/, '')},\n] as const satisfies readonly EntryColumn[];`,
    );
    registerMigration(target, 'Favorites1900000000001', '1900000000001-favorites');
    write(
      target,
      'test/recipe-field.e2e-spec.ts',
      `import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { anime, createUserWithToken, importTitles, manga } from './factories';
import { api, useTestApp } from './utils/test-app';

describe('is_favorite', () => {
  let app: NestFastifyApplication;
  useTestApp((created) => (app = created));

  it('is written, read, defaulted, validated and documented for every media type', async () => {
    await importTitles(app, [anime(1), manga(1)]);
    const { token } = await createUserWithToken(app);
    const client = api(app, token);
    await client.put('/v1/my/anime/1/ratings', { status: 'ongoing', is_favorite: true }).expect(200);
    await client.put('/v1/my/manga/1/ratings', { status: 'ongoing' }).expect(200);
    expect((await client.get('/v1/my/anime/1/ratings').expect(200)).body[0].is_favorite).toBe(true);
    expect((await client.get('/v1/my/manga/1/ratings').expect(200)).body[0].is_favorite).toBe(false);
    const bad = await client.put('/v1/my/anime/1/ratings', { status: 'ongoing', is_favorite: 'yes' }).expect(400);
    expect(bad.body.errors).toEqual([{ field: 'is_favorite', message: 'must be a boolean (true or false)' }]);
    const document = await api(app).get('/docs/openapi.json').expect(200);
    expect(document.body.components.schemas.MangaRatingView.properties.is_favorite).toEqual({ type: 'boolean' });
  });
});
`,
    );
    expect(passed(typecheck(target))).toBe('passed');
    const specs = ['test/recipe-field', 'test/ratings.e2e', 'test/migrations.e2e'];
    expect(passed(jest(target, 'test/jest-e2e.json', specs))).toBe('passed');
    expect(passed(jest(target, 'jest.config.js', []))).toBe('passed');
  });
});
