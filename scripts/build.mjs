// `npm run build`: compiles src/ into dist/ without ever leaving no build behind. tsc writes a new
// folder, which takes dist/'s place only once the compilation succeeded: a type error, or a
// missing compiler or type package, leaves the previous build as it was. The new dist/ carries a
// stamp of the sources it was compiled from (build-inputs.mjs), for `npm start` to read.
import { spawnSync } from 'node:child_process';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { inputsDigest, STAMP_FILE } from './build-inputs.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const next = join(root, 'dist.next');

let tsc;
try {
  tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('No TypeScript compiler: run `npm ci` (devDependencies included) first.\n');
  process.exit(1);
}

rmSync(next, { recursive: true, force: true });
// Before compiling: a source edited while tsc runs leaves a stamp that no longer matches it.
const inputs = inputsDigest(root);
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', next],
  { stdio: 'inherit', cwd: root },
);
if (compiled.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  process.stderr.write('The build failed: dist/ is left as it was.\n');
  process.exit(compiled.status ?? 1);
}
writeFileSync(join(next, STAMP_FILE), `${JSON.stringify({ inputs })}\n`);
rmSync(dist, { recursive: true, force: true });
renameSync(next, dist);
