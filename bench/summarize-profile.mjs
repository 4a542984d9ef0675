#!/usr/bin/env node
// Summarises a V8 .cpuprofile (from `npm run bench -- --cpu-prof` or `node --cpu-prof`): where the
// CPU time went: by part of the request (the tables of BENCHMARKS.md), by package or file and by
// function, self time and inclusive time.
//
//   node bench/summarize-profile.mjs FILE.cpuprofile [--top 25] [--cpu-ms-per-request 0.165]
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { parseArgs } from 'node:util';

/**
 * @typedef {{ functionName: string, url: string, lineNumber: number }} CallFrame
 * @typedef {{ id: number, callFrame: CallFrame, children?: number[] }} ProfileNode
 * @typedef {{ nodes: ProfileNode[], samples: number[], timeDeltas: number[], startTime: number, endTime: number }} Profile
 */

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    // The scenario's server CPU per request from a run without the profiler: each part's share
    // of the busy time is also shown in ms per request.
    'cpu-ms-per-request': { type: 'string' },
  },
});
if (positionals.length !== 1) {
  process.stderr.write(
    'usage: node bench/summarize-profile.mjs FILE.cpuprofile [--top N] [--cpu-ms-per-request MS]\n',
  );
  process.exit(2);
}
const top = Number(values.top);
const parsed = /** @type {unknown} */ (JSON.parse(readFileSync(positionals[0], 'utf8')));
const profile = /** @type {Profile} */ (parsed);

/** @type {Map<number, ProfileNode>} */
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
/** @type {Map<number, number>} */
const parentOf = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parentOf.set(child, node.id);

/** Self time per node, in ms. */
/** @type {Map<number, number>} */
const selfMs = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const ms = (profile.timeDeltas[i] ?? 0) / 1000;
  selfMs.set(profile.samples[i], (selfMs.get(profile.samples[i]) ?? 0) + ms);
}
const totalMs = [...selfMs.values()].reduce((a, b) => a + b, 0);
const idleMs = [...selfMs.entries()]
  .filter(([id]) => ['(idle)', '(program)'].includes(byId.get(id)?.callFrame.functionName ?? ''))
  .reduce((a, [, ms]) => a + ms, 0);

/** @param {CallFrame} frame */
function moduleOf(frame) {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node: internals';
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `dist/${dist[1]}`;
  return url.replace(/^file:\/\//, '');
}

/** @param {CallFrame} frame */
const functionKey = (frame) =>
  `${frame.functionName || '(anonymous)'}  ${moduleOf(frame)}:${frame.lineNumber + 1}`;

/** @param {Map<string, number>} map @param {string} key @param {number} ms */
const add = (map, key, ms) => map.set(key, (map.get(key) ?? 0) + ms);

/** @type {Map<string, number>} */
const selfByModule = new Map();
/** @type {Map<string, number>} */
const selfByFunction = new Map();
/** @type {Map<string, number>} */
const inclusiveByFunction = new Map();
/** @type {Map<string, number>} */
const inclusiveByModule = new Map();
for (const [id, ms] of selfMs) {
  const frame = /** @type {ProfileNode} */ (byId.get(id)).callFrame;
  add(selfByModule, moduleOf(frame), ms);
  add(selfByFunction, functionKey(frame), ms);
  // Inclusive: once per distinct function / module on the stack.
  const seenFunctions = new Set();
  const seenModules = new Set();
  for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parentOf.get(at)) {
    const f = /** @type {ProfileNode} */ (byId.get(at)).callFrame;
    const key = functionKey(f);
    if (!seenFunctions.has(key)) {
      seenFunctions.add(key);
      add(inclusiveByFunction, key, ms);
    }
    const mod = moduleOf(f);
    if (!seenModules.has(mod)) {
      seenModules.add(mod);
      add(inclusiveByModule, mod, ms);
    }
  }
}

/**
 * Parts of a request, tried from the sampled frame up its stack: a sample counts for the first
 * part one of its frames belongs to (the SQL driver's native call counts as SQL, not as native).
 * @type {[string, (frame: CallFrame) => boolean][]}
 */
const PARTS = [
  ['garbage collection', (f) => f.functionName === '(garbage collector)'],
  [
    'async context (promise hooks of an AsyncLocalStorage)',
    (f) =>
      ['promiseInitHook', 'emitInitScript', 'emitInitNative', '_propagate'].includes(
        f.functionName,
      ),
  ],
  [
    "HTTP: parsing the request, Node's http",
    (f) => /^node:_http_/.test(f.url) || f.functionName.startsWith('parserOn'),
  ],
  [
    'SQL: better-sqlite3 / mysql2 and TypeORM', // SQL_PART
    (f) => /better-sqlite3|typeorm|mysql2|dist\/database\//.test(f.url),
  ],
  [
    'DTO validation: class-validator, class-transformer, ValidationPipe',
    (f) => /class-validator|class-transformer|validation\.pipe/.test(f.url),
  ],
  ['JSON body parsing', (f) => /secure-json-parse|content-type-parser/.test(f.url)],
  ['bearer token: passport, strategy, token lookup', (f) => /dist\/auth\/|passport/.test(f.url)],
  [
    'the other guards: rate limits, IP denial, User-Agent, scopes',
    (f) => /dist\/(rate-limit|counters|common)\//.test(f.url),
  ],
  [
    'metrics and access log',
    (f) => /prom-client|pino|sonic-boom|dist\/(metrics|logging)\//.test(f.url),
  ],
  [
    'the contract: entries, views, ETags, change records, outbox',
    (f) =>
      /dist\/(ratings|sync|webhooks|public-lists|conditional-reads|profile|catalog|users)\//.test(
        f.url,
      ),
  ],
  ['Nest: router, guard and pipe consumers, interceptors', (f) => /@nestjs/.test(f.url)],
  ['Fastify: routing, hooks, reply', (f) => /fastify|find-my-way|avvio/.test(f.url)],
];
/** @type {Map<string, number>} */
const byPart = new Map();
const SQL_PART = 'SQL: better-sqlite3 / mysql2 and TypeORM';
const SOCKET_WRITES = ['writev', 'writeBuffer', 'writeString', 'writevGeneric', 'writeGeneric'];
for (const [id, ms] of selfMs) {
  let part = 'the rest: microtasks, timers, small frames';
  // A socket write (the syscall, and the wake-up of the peer on these shared cores) belongs to
  // the SQL when the database driver made it, else to the HTTP response.
  let socketWrite = false;
  for (let at = /** @type {number | undefined} */ (id); at !== undefined; at = parentOf.get(at)) {
    const frame = /** @type {ProfileNode} */ (byId.get(at)).callFrame;
    if (['(idle)', '(program)'].includes(frame.functionName)) {
      part = '';
      break;
    }
    if (SOCKET_WRITES.includes(frame.functionName)) {
      socketWrite = true;
      continue;
    }
    const found = PARTS.find(([, belongs]) => belongs(frame));
    if (found) {
      part = found[0];
      break;
    }
  }
  if (socketWrite && part !== '' && part !== SQL_PART) {
    part = "HTTP: writing the response to the socket (Node's net)";
  }
  if (part) add(byPart, part, ms);
}

const busyMs = totalMs - idleMs;
/** @param {string} title @param {Map<string, number>} map @param {number} base */
function print(title, map, base) {
  process.stdout.write(`\n${title}\n`);
  const rows = [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, ms] of rows) {
    process.stdout.write(
      `${ms.toFixed(0).padStart(8)} ms ${((100 * ms) / base).toFixed(1).padStart(5)} %  ${key}\n`,
    );
  }
}

process.stdout.write(
  `${positionals[0]}\nsampled ${totalMs.toFixed(0)} ms, of which idle/program ${idleMs.toFixed(0)} ms; percentages are of the ${busyMs.toFixed(0)} ms busy\n`,
);
const cpuMsPerRequest = values['cpu-ms-per-request'] ? Number(values['cpu-ms-per-request']) : null;
process.stdout.write('\nby part of the request\n');
for (const [part, ms] of [...byPart.entries()].sort((a, b) => b[1] - a[1])) {
  const share = ms / busyMs;
  const perRequest =
    cpuMsPerRequest === null ? '' : `  ${(share * cpuMsPerRequest).toFixed(3)} ms/request`;
  process.stdout.write(`${(100 * share).toFixed(1).padStart(5)} %${perRequest}  ${part}\n`);
}
print('self time by package / file', selfByModule, busyMs);
print('inclusive time by package / file', inclusiveByModule, busyMs);
print('self time by function', selfByFunction, busyMs);
print('inclusive time by function', inclusiveByFunction, busyMs);
