// `npm start` runs this first. With the build's toolchain installed (the TypeScript compiler and
// the @types packages of devDependencies: a clone after `npm ci`) it builds unless dist/ was built
// from the sources as they are (its stamp, build-inputs.mjs), so that `npm ci && npm start` serves
// the current sources and a second `npm start` starts at once. Without it (a production install:
// `npm ci --omit=dev`, or `npm prune --omit=dev` after building, which may keep `typescript`
// itself as a peer of typeorm but drops the type packages) it starts the build in dist/ as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { builtDigest, inputsDigest } from './build-inputs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const parsed = /** @type {unknown} */ (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
);
const pkg = /** @type {{ devDependencies?: Record<string, string> }} */ (parsed);
const devDependencies = pkg.devDependencies ?? {};
const toolchain = Object.keys(devDependencies).filter(
  (name) => name === 'typescript' || name.startsWith('@types/'),
);
const require = createRequire(join(root, 'package.json'));
const missing = toolchain.filter((name) => {
  try {
    require.resolve(`${name}/package.json`);
    return false;
  } catch {
    return true;
  }
});

if (missing.length === 0) {
  const dist = join(root, 'dist');
  const built = existsSync(join(dist, 'main.js')) ? builtDigest(dist) : null;
  if (built !== null && built === inputsDigest(root)) process.exit(0);
  process.stderr.write(
    built === null
      ? 'Building dist/ (npm run build): dist/ holds no stamped build.\n'
      : 'Building dist/ (npm run build): the sources changed since the last build.\n',
  );
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], {
    stdio: 'inherit',
    cwd: root,
  });
  process.exit(build.status ?? 1);
}

if (existsSync(join(root, 'dist', 'main.js'))) {
  process.stderr.write(
    `No build toolchain (${missing.join(', ')} not installed: a production install): ` +
      'starting the build in dist/ as it is.\n',
  );
  process.exit(0);
}

process.stderr.write(
  'No build in dist/ and no toolchain to make one. Run `npm ci` (devDependencies included) and ' +
    '`npm run build`, then `npm prune --omit=dev` if you want a production install.\n',
);
process.exit(1);
