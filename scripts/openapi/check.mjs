#!/usr/bin/env node
// `npm run openapi:check`: the OpenAPI document the server serves must pass `redocly lint` with the
// recommended rules (warnings allowed, no errors), and a client generated from it with
// openapi-typescript must compile under `tsc --strict` with manga bodies typed as manga
// (client-check.ts). Needs a build (the npm script makes one first).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
// Inside node_modules so that the compiled client resolves openapi-fetch like any package would.
const work = join(root, 'node_modules', '.cache', 'openapi-check');
/** @param {string} name */
const bin = (name) => join(root, 'node_modules', '.bin', name);
/** @param {string} step @param {string} command @param {string[]} args */
const run = (step, command, args) => {
  process.stdout.write(`openapi:check: ${step}\n`);
  execFileSync(command, args, { cwd: root, stdio: 'inherit' });
};

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
const document = join(work, 'openapi.json');
run('export the served document', process.execPath, [
  join(root, 'dist', 'openapi-export.js'),
  document,
]);
run('redocly lint (recommended rules)', bin('redocly'), [
  'lint',
  '--extends=recommended',
  '--format=stylish',
  document,
]);
run('generate the client types', bin('openapi-typescript'), [
  document,
  '-o',
  join(work, 'schema.d.ts'),
]);
copyFileSync(join(here, 'client-check.ts'), join(work, 'client-check.ts'));
run('compile the typed client under tsc --strict', bin('tsc'), [
  '--strict',
  '--noEmit',
  '--target',
  'ES2022',
  '--lib',
  'ES2022,DOM',
  '--module',
  'preserve',
  '--moduleResolution',
  'bundler',
  '--types',
  'node',
  join(work, 'client-check.ts'),
]);
process.stdout.write('openapi:check: passed\n');
