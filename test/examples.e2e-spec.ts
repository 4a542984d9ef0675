import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

interface CatalogRecord {
  media_type: string;
  external_id: number | null;
}
const CATALOG = JSON.parse(
  readFileSync(join(ROOT, 'examples', 'catalog.json'), 'utf8'),
) as CatalogRecord[];

/** The files in examples/ and the README's examples agree with each other (issue 30 item 7). */
describe('examples/ and the README', () => {
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
