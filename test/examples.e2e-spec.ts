import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { malFormatOf } from '../src/mal-lists/mal-format';
import { runCli } from './utils/cli';
import { api, useTestApp } from './utils/test-app';
import { createUserWithToken } from './factories';

// Every CLI run starts a process of its own: slow on a busy machine.
jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');
/** The README and every docs page, as one text: where the examples are shown. */
const README = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(ROOT, 'docs', name)),
]
  .map((path) => readFileSync(path, 'utf8'))
  .join('\n');
const SAMPLE = 'examples/animelist.sample.xml';

interface CatalogRecord {
  media_type: string;
  external_id: number | null;
}
const CATALOG = JSON.parse(
  readFileSync(join(ROOT, 'examples', 'catalog.json'), 'utf8'),
) as CatalogRecord[];

/** The `# {…}` line the README prints under `command`. */
function readmeAnswerOf(command: string): unknown {
  const at = README.indexOf(`${command}\n# `);
  expect({ command, inReadme: at !== -1 }).toEqual({ command, inReadme: true });
  const line = README.slice(at + command.length + 3).split('\n')[0];
  return JSON.parse(line);
}

/** The files in examples/ and the README's examples agree with each other (issue 30 item 7). */
describe('examples/ and the README', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created));

  it('the sample MyAnimeList export imports through the CLI with the summary the README shows', async () => {
    expect(await runCli(['catalog', 'import', 'examples/catalog.json'])).toMatchObject({
      code: 0,
    });
    const { user, token } = await createUserWithToken(app);
    const args = ['lists', 'import', '--user', user.name, '--media-type', 'anime', SAMPLE];
    const imported = await runCli(args);
    expect(imported).toMatchObject({ code: 0, stderr: '' });
    const summary = JSON.parse(imported.stdout) as unknown;
    expect(summary).toEqual(
      readmeAnswerOf(`node dist/cli.js lists import --user alice --media-type anime ${SAMPLE}`),
    );
    expect(summary).toMatchObject({ created: 6, skipped: [{ reason: 'not_in_catalog' }] });

    const entries = (await api(app, token).get('/v1/my/anime/ratings').expect(200)).body as {
      external_id: number;
      status: string;
    }[];
    expect(entries.map(({ external_id, status }) => [external_id, status])).toEqual([
      [5114, 'completed'],
      [9253, 'ongoing'],
      [1535, 'on_hold'],
      [30, 'dropped'],
      [199, 'completed'],
      [52991, 'bookmark'],
    ]);
  });

  it('the sample is in the export format: myinfo, then every element of each entry, in order', () => {
    const xml = readFileSync(join(ROOT, SAMPLE), 'utf8');
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8" \?>/);
    expect(xml).toContain('<user_export_type>1</user_export_type>');
    const entries = [...xml.matchAll(/<anime>([\s\S]*?)<\/anime>/g)].map(([, inner]) =>
      [...inner.matchAll(/<(\w+)>/g)].map(([, name]) => name),
    );
    expect(entries.length).toBeGreaterThan(0);
    for (const names of entries) expect(names).toEqual(malFormatOf('anime').elements);
  });

  it('every not_in_catalog example of the README names a title examples/catalog.json lacks', () => {
    const skipped = [
      ...README.matchAll(
        /\{"external_id":(\d+),"reason":"not_in_catalog","detail":"No (\w+) title has external_id (\d+)"\}/g,
      ),
    ];
    expect(skipped.length).toBeGreaterThan(0);
    for (const [, id, mediaType, named] of skipped) {
      expect(named).toBe(id);
      const inCatalog = CATALOG.some(
        (title) => title.media_type === mediaType && title.external_id === Number(id),
      );
      expect({ id, mediaType, inCatalog }).toEqual({ id, mediaType, inCatalog: false });
    }
  });

  it('every backup example of the README creates its folder before writing into it', () => {
    const blocks = [...README.matchAll(/```bash\n([\s\S]*?)```/g)].map(([, block]) => block);
    const backups = blocks.flatMap((block) =>
      [...block.matchAll(/\.backup '([^'/]+)\//g)].map(([, folder]) => ({ block, folder })),
    );
    expect(backups.length).toBeGreaterThan(0);
    for (const { block, folder } of backups) {
      expect({ folder, created: block.includes(`mkdir -p ${folder}\n`) }).toEqual({
        folder,
        created: true,
      });
    }
  });
});
