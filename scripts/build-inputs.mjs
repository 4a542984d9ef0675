// What dist/ is built from, and the stamp that records it: `npm run build` writes the stamp into
// the new dist/, `npm start` compares it with the sources to skip a build that would change
// nothing. A digest of the contents rather than modification times: a checkout, a copy or a
// restore changes times without changing a byte, and an edit within the same clock tick as a
// build changes a byte without changing the time.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const STAMP_FILE = 'build-stamp.json';

/** Files outside src/ whose change changes the build: compiler settings and the dependencies. */
const SETTINGS = ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];

/**
 * src/, less the unit specs that tsconfig.build.json leaves out of dist/.
 * @param {string} root
 */
function sources(root) {
  return readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.spec.ts'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)));
}

/**
 * The digest of every input of the build, by path and content.
 * @param {string} root
 */
export function inputsDigest(root) {
  const files = [...sources(root), ...SETTINGS.filter((file) => existsSync(join(root, file)))];
  const hash = createHash('sha256');
  for (const file of files.map((name) => name.split(sep).join('/')).sort()) {
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/**
 * The digest the build in `dist` was made from, or null when it has no stamp.
 * @param {string} dist
 */
export function builtDigest(dist) {
  try {
    const parsed = /** @type {unknown} */ (
      JSON.parse(readFileSync(join(dist, STAMP_FILE), 'utf8'))
    );
    const stamp = /** @type {{ inputs?: unknown }} */ (parsed);
    return typeof stamp.inputs === 'string' ? stamp.inputs : null;
  } catch {
    return null;
  }
}
