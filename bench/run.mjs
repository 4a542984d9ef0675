#!/usr/bin/env node
// The benchmark suite (BENCHMARKS.md): seeds a fresh database through the admin CLI and the API,
// then measures the API against a bare node:http baseline in the same run.
//
//   npm run build && npm run bench [-- --db mysql] [-- --quick]
//   npm run bench -- --db galera    (bench/galera.mjs: two instances, one MariaDB against Galera)
import { Buffer } from 'node:buffer';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { parseArgs } from 'node:util';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import {
  freePort,
  killAllChildrenNow,
  runNode,
  ProcSampler,
  startChild,
  stopAllChildren,
  stopChild,
  waitForHttp,
} from './lib/children.mjs';
import {
  createDatabase,
  DEFAULT_MYSQL_SERVER,
  findDatabaseServerPid,
  insertRows,
  selectRow,
} from './lib/database.mjs';
import { apiHeaders, HttpClient, USER_AGENT } from './lib/http.mjs';
import {
  runNodeWithPeakRss,
  startWebhookReceiver,
  writeMalExport,
  writeOfflineDatabase,
} from './lib/imports.mjs';
import { measure, probeLatency, soak as runSoak, warm } from './lib/load.mjs';
import {
  formatProbes,
  formatTable,
  formatVerdicts,
  baselineRequestsPerSecond,
  compareWithPrevious,
  invalidFigures,
  judgeTargets,
  referenceFile,
  writeResults,
} from './lib/report.mjs';
import {
  ANIME_TITLES,
  fillLists,
  HALF_PRIVATE_KEY,
  LIST_USERS,
  PUT_BODY,
  SCOPES,
  seedWithCli,
  writeCatalogFile,
} from './lib/seed.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_DIR = join(ROOT, 'bench', 'results');
const SOAK_WARMUP_SECONDS = 5;
/** Rounds of each side of the metrics-and-logs pair, measured in turn; the median round counts. */
const PAIR_ROUNDS = 5;

const USAGE = `Usage: npm run bench -- [options]   (after npm run build)

  --db sqlite|mysql     database (default sqlite: a temp file; mysql: a fresh bench_<random>
                        database on --mysql-url, dropped at the end)
  --db galera           GET one, PUT update and GET all (1k) through two instances: on one
                        MariaDB (--mysql-url), then on two nodes of the local Galera cluster
                        (npm run cluster:start; started and stopped for the run when not up)
  --mysql-url URL       MariaDB/MySQL server (default ${DEFAULT_MYSQL_SERVER})
  --quick               smoke run: 3 s per scenario, 1 s warm-up, no soak
  --soak / --no-soak    force the 60 s soak on or off (default: on unless --quick)
  --duration S          seconds per scenario (default 10)
  --warmup S            warm-up seconds per scenario (default 3)
  --connections N       autocannon connections (default 50)
  --soak-seconds S      soak length (default 60)
  --only a,b            run only these scenarios (names as in the table; baseline always runs)
  --cpu-prof            write a V8 CPU profile of the server per scenario to bench/results/profiles/
                        (slows the server down: figures of such a run are not comparable)
  --keep                keep the temp dir (SQLite file, logs, catalog) and the MariaDB database
                        for inspection
  --save-reference      also write the results to bench/results/reference/<db>.json (committed):
                        what runs on a machine without earlier results compare with
  --help`;

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    'mysql-url': { type: 'string', default: DEFAULT_MYSQL_SERVER },
    quick: { type: 'boolean', default: false },
    soak: { type: 'boolean' },
    'no-soak': { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    connections: { type: 'string', default: '50' },
    'soak-seconds': { type: 'string', default: '60' },
    only: { type: 'string' },
    'cpu-prof': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
    'save-reference': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

/** @param {string} name @param {string | undefined} raw @param {number} fallback @param {number} max */
function positiveInt(name, raw, fallback, max) {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new Error(`--${name} must be an integer from 0 to ${max}, got "${raw}"`);
  }
  return value;
}

if (args.db === 'galera') {
  const tmpDir = await mkdtemp(join(tmpdir(), 'ratings-bench-galera-'));
  /** @type {(() => Promise<void>)[]} */
  const steps = [async () => rm(tmpDir, { recursive: true, force: true })];
  try {
    const { benchGalera } = await import('./galera.mjs');
    await benchGalera({
      root: ROOT,
      tmpDir,
      mysqlServer: args['mysql-url'],
      duration: positiveInt('duration', args.duration, args.quick ? 3 : 10, 600),
      connections: positiveInt('connections', args.connections, 50, 1000),
      say: (line) => process.stdout.write(`${line}\n`),
      cleanups: steps,
    });
  } finally {
    for (const step of steps.reverse()) await step().catch(() => undefined);
    await stopAllChildren();
  }
  process.exit(0);
}

const db = /** @type {'sqlite' | 'mysql'} */ (args.db === 'mariadb' ? 'mysql' : args.db);
if (db !== 'sqlite' && db !== 'mysql')
  throw new Error(`--db must be sqlite or mysql, got "${args.db}"`);
const settings = {
  db,
  quick: args.quick,
  duration: positiveInt('duration', args.duration, args.quick ? 3 : 10, 600),
  warmup: positiveInt('warmup', args.warmup, args.quick ? 1 : 3, 60),
  connections: positiveInt('connections', args.connections, 50, 1000),
  soak: args['no-soak'] ? false : (args.soak ?? !args.quick),
  soakSeconds: positiveInt('soak-seconds', args['soak-seconds'], 60, 3600),
  probeSeconds: args.quick ? 1 : 3,
  only: args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null,
  cpuProf: args['cpu-prof'],
};

/** Everything to undo, newest first. */
/** @type {(() => Promise<void>)[]} */
const cleanups = [];
/** @type {Promise<void> | null} */
let cleaningUp = null;
function cleanUp() {
  cleaningUp ??= (async () => {
    for (const step of cleanups.reverse()) {
      try {
        await Promise.race([step(), sleep(20_000)]);
      } catch (error) {
        process.stderr.write(`cleanup step failed: ${String(error)}\n`);
      }
    }
    await stopAllChildren();
  })();
  return cleaningUp;
}
let interrupted = false;
process.on('exit', killAllChildrenNow);
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
  process.once(signal, () => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the bench and cleaning up…\n`);
    // A second signal during cleanup kills at once.
    process.once(signal, () => process.exit(130));
    void cleanUp().finally(() => process.exit(130));
  });
}

/** @param {string} message */
const say = (message) => process.stdout.write(`${message}\n`);

async function waitForBuild() {
  const needed = ['dist/main.js', 'dist/cli.js'].map((file) => join(ROOT, file));
  // A build may be swapping dist/ in (scripts/build.mjs): wait a bit before giving up.
  for (let attempt = 0; attempt < 60; attempt++) {
    if (needed.every((file) => existsSync(file))) return;
    if (attempt === 0) say('dist/ is incomplete, waiting up to 60 s for a build…');
    await sleep(1000);
  }
  throw new Error('dist/main.js or dist/cli.js is missing: run `npm run build` first');
}

async function main() {
  await waitForBuild();
  const started = Date.now();
  const tmpDir = await mkdtemp(join(tmpdir(), 'ratings-bench-'));
  cleanups.push(async () => {
    if (args.keep) say(`kept ${tmpDir}`);
    else await rm(tmpDir, { recursive: true, force: true });
  });

  say(
    `bench: ${db}, ${settings.connections} connections, ${settings.duration} s per scenario after ${settings.warmup} s warm-up, soak ${settings.soak ? `${settings.soakSeconds} s` : 'off'}`,
  );
  const database = await createDatabase(db, { tmpDir, mysqlServer: args['mysql-url'] });
  cleanups.push(async () => {
    if (args.keep && db === 'mysql') say(`kept ${database.label} (drop it by hand)`);
    else await database.drop();
  });
  say(`database: ${database.label}`);

  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    DATABASE_URL: database.url,
    PORT: String(port),
    REDIS_URL: '',
    RATE_LIMIT_USER_LIMIT: '1000000000',
    RATE_LIMIT_IP_LIMIT: '1000000000',
    // scrobble-jellyfin sends thousands of requests a second through one scrobbler's secret.
    SCROBBLE_RATE_LIMIT: '1000000000',
    UA_DENY_THRESHOLD: '0',
    // warn: no access log line is written (get-one-logs measures them at info).
    LOG_LEVEL: 'warn',
    PUBLIC_LISTS: 'true',
    // put-update-webhook's receiver listens on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE: 'true',
  };
  const cli = (/** @type {string[]} */ ...cliArgs) =>
    runNode(['dist/cli.js', ...cliArgs], { cwd: ROOT, env, timeoutMs: 300_000 });
  const wanted = (/** @type {string} */ name) => !settings.only || settings.only.has(name);

  // Seed the catalog, users and tokens with the admin CLI (this also runs the migrations).
  let t = Date.now();
  const catalogFile = await writeCatalogFile(tmpDir);
  const { imported, tokens } = await seedWithCli({ cwd: ROOT, env, catalogFile });
  say(
    `catalog import + users + tokens: ${JSON.stringify(imported)} in ${((Date.now() - t) / 1000).toFixed(1)} s`,
  );

  // The server under test.
  const profileDir = join(
    RESULTS_DIR,
    'profiles',
    new Date().toISOString().slice(0, 16).replace(/:/g, '-') + `-${db}`,
  );
  const serverArgs = settings.cpuProf
    ? ['--import', pathToFileURL(join(ROOT, 'bench', 'cpu-prof-preload.mjs')).href, 'dist/main.js']
    : ['dist/main.js'];
  const startServer = async (
    /** @type {string} */ name,
    /** @type {{ url: string, env: NodeJS.ProcessEnv }} */ at = { url: baseUrl, env },
  ) => {
    const child = startChild(name, serverArgs, {
      env: at.env,
      cwd: ROOT,
      logFile: join(tmpDir, `${name}.log`),
      ipc: settings.cpuProf,
    });
    cleanups.push(() => stopChild(child.child));
    await waitForHttp(`${at.url}/health`, child);
    const sampler = new ProcSampler(child.pid);
    cleanups.push(async () => sampler.stop());
    return { child, sampler };
  };
  const { child: server, sampler: serverSampler } = await startServer('server');

  t = Date.now();
  const filled = await fillLists({ baseUrl, tokens });
  await serverSampler.sample();
  say(
    `lists filled through PUT: ${filled.requests} requests in ${filled.seconds.toFixed(1)} s (${(filled.requests / filled.seconds).toFixed(0)} req/s at 20 in flight); server RSS now ${(serverSampler.lastRssBytes / 2 ** 20).toFixed(0)} MB, peak ${(serverSampler.hwmBytes / 2 ** 20).toFixed(0)} MB`,
  );

  const getOnePath = '/v1/my/anime/500/ratings';
  const client = new HttpClient(baseUrl, 1);
  const sample = await client.request('GET', getOnePath, { headers: apiHeaders(tokens['1k']) });
  client.close();
  if (sample.status !== 200) throw new Error(`GET one answered ${sample.status}: ${sample.body}`);
  const bodyFile = join(tmpDir, 'baseline-body.json');
  await writeFile(bodyFile, sample.body);

  const baselinePort = await freePort();
  const baseline = startChild('baseline', [join(ROOT, 'bench', 'baseline-server.mjs')], {
    env: { ...process.env, PORT: String(baselinePort), BASELINE_BODY_FILE: bodyFile },
    cwd: ROOT,
    logFile: join(tmpDir, 'baseline.log'),
  });
  cleanups.push(() => stopChild(baseline.child));
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  await waitForHttp(baselineUrl, baseline);
  const baselineSampler = new ProcSampler(baseline.pid);
  cleanups.push(async () => baselineSampler.stop());

  const dbPid = db === 'mysql' ? await findDatabaseServerPid() : null;
  const dbSampler = dbPid ? new ProcSampler(dbPid) : null;
  cleanups.push(async () => dbSampler?.stop());

  const sync = await prepareSyncScenarios(baseUrl, tokens);
  say(
    `sync scenarios: first sync of the 10k list in ${sync.firstSyncCalls} calls (${sync.firstSyncSeconds.toFixed(1)} s), then 10 PUTs`,
  );
  const history =
    wanted('history-page') || wanted('put-progress')
      ? await prepareHistoryScenarios({ tmpDir, cli })
      : null;
  if (history) {
    say(
      `history scenarios: ${history.events} events of one user's anime list through ${HISTORY_IMPORTS} lists imports of ${HISTORY_TITLES} elements in ${history.seconds.toFixed(1)} s`,
    );
  }
  const statistics = wanted('statistics-10k') ? await prepareStatisticsScenario(database) : null;
  if (statistics) {
    say(
      `statistics-10k: ${statistics.events} history events of the 10k list over 24 months (${statistics.inserted} dated in the past) in ${statistics.seconds.toFixed(1)} s`,
    );
  }
  const scrobble = wanted('scrobble-jellyfin')
    ? await prepareScrobbleScenario({ baseUrl, cli })
    : null;
  if (scrobble) {
    say(
      `scrobble-jellyfin: a jellyfin scrobbler and ${scrobble.mappings} mappings in ${scrobble.seconds.toFixed(1)} s`,
    );
  }
  const malImport = wanted('mal-import-10k')
    ? await measureMalImport({ tmpDir, env, cli, startServer })
    : null;
  if (malImport) {
    say(
      `mal-import-10k: ${JSON.stringify(malImport.counts)} in ${malImport.seconds.toFixed(1)} s; server VmHWM ${malImport.serverPeakRssMb} MB`,
    );
  }

  /**
   * put-update-webhook's one webhook, subscribed for its rounds only: created before each of
   * them, deleted before each round of put-update once the server has delivered what is left.
   */
  const webhook = {
    /** @type {Awaited<ReturnType<typeof startWebhookReceiver>> | null} */
    receiver: null,
    /** @type {string | null} */
    id: null,
    /** Events delivered after the rounds that queued them, and the server CPU seconds it took. */
    drained: { events: 0, cpuSeconds: 0 },
    /** Events delivered during the measured phases, and the PUTs of those phases. */
    inPhase: { events: 0, puts: 0 },
    async subscribe() {
      if (this.id) return;
      if (!this.receiver) {
        this.receiver = await startWebhookReceiver(join(tmpDir, 'webhook-receiver.log'));
        const { close } = this.receiver;
        cleanups.push(() => close());
      }
      const created = await cli(
        'webhooks',
        'create',
        '--url',
        `http://127.0.0.1:${this.receiver.port}/bench-hook`,
      );
      const parsed = /** @type {unknown} */ (JSON.parse(created));
      this.id = /** @type {{ id: string }} */ (parsed).id;
    },
    /** Waits until the server has delivered what the last round queued, and counts its cost. */
    async drain() {
      if (!this.id || !this.receiver) return;
      const before = await this.receiver.received();
      const window = await serverSampler.window();
      await serverSampler.waitIdle();
      this.drained.cpuSeconds += (await window.end()).cpuSeconds;
      this.drained.events += (await this.receiver.received()) - before;
    },
    async unsubscribe() {
      if (!this.id) return;
      await this.drain();
      await cli('webhooks', 'delete', this.id);
      this.id = null;
    },
  };
  const scenarios = buildScenarios(
    tokens,
    getOnePath,
    sync,
    () => webhook.subscribe(),
    history,
    scrobble,
  );
  const selected = scenarios.filter(
    (s) => s.target === 'baseline' || !settings.only || settings.only.has(s.name),
  );

  /** @type {Awaited<ReturnType<typeof measure>>[]} */
  const rows = [];
  /** @param {'api-fresh' | 'api-logs'} target */
  const startObservedServer = async (target) => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const started = await startServer(`server-${target}`, {
      url,
      env: {
        ...env,
        PORT: String(port),
        LOG_LEVEL: target === 'api-logs' ? 'info' : 'warn',
        METRICS_ENABLED: target === 'api-logs' ? 'true' : 'false',
      },
    });
    return { ...started, url };
  };
  /** @type {PairSide} a write on the main server, no webhook subscribed */
  const plainSide = {
    child: server,
    sampler: serverSampler,
    db: dbSampler,
    url: baseUrl,
    enter: () => webhook.unsubscribe(),
  };
  /** @type {PairSide} put-update-webhook's: subscribed before each of its rounds */
  const webhookSide = {
    child: server,
    sampler: serverSampler,
    db: dbSampler,
    url: baseUrl,
    enter: async () => {
      await webhook.drain();
      await webhook.subscribe();
    },
    phase: {
      before: async () => {
        webhook.inPhase.events -= (await webhook.receiver?.received()) ?? 0;
      },
      after: async () => {
        webhook.inPhase.events += (await webhook.receiver?.received()) ?? 0;
      },
    },
    leave: async (row) => {
      webhook.inPhase.puts += row.requestsTotal;
    },
  };
  /**
   * The groups measured in alternation, at the place of the first of them: GET one with
   * metrics and logs off and on, each on a server of its own; the writes compared with each other
   * (PUT update without and with a webhook, PUT progress, the scrobble), on the main server.
   * `sides` gets the names of the group's selected scenarios and returns a side for each.
   * @type {{ names: string[], sides: (names: string[]) => Promise<PairSide[]>, done?: (sides: PairSide[]) => Promise<void> }[]}
   */
  const pairs = [
    {
      names: ['get-one-fresh', 'get-one-logs'],
      sides: (names) =>
        Promise.all(
          names.map((name) =>
            startObservedServer(name === 'get-one-fresh' ? 'api-fresh' : 'api-logs'),
          ),
        ),
      done: async (sides) => {
        for (const side of sides) {
          await stopChild(side.child.child);
          side.sampler.stop();
        }
      },
    },
    {
      names: ['put-update', 'put-update-webhook', 'put-progress', 'scrobble-jellyfin'],
      sides: async (names) =>
        names.map((name) => (name === 'put-update-webhook' ? webhookSide : plainSide)),
      done: () => webhook.unsubscribe(),
    },
  ];
  for (const scenario of selected) {
    const isBaseline = scenario.target === 'baseline';
    const pair = pairs.find((p) => p.names.includes(scenario.name));
    const pairScenarios = pair ? selected.filter((s) => pair.names.includes(s.name)) : [];
    if (pair && pairScenarios.length >= 2) {
      if (scenario === pairScenarios[0]) {
        const sides = await pair.sides(pairScenarios.map((s) => s.name));
        try {
          for (const row of await measurePair(pairScenarios, sides, (measured, round) =>
            settings.cpuProf && round === 0
              ? profileHooks(
                  sides[pairScenarios.indexOf(measured)].child.child,
                  profileDir,
                  measured.name,
                )
              : undefined,
          )) {
            rows.push(row);
            say(
              `  ${row.scenario.padEnd(18)} ${row.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${row.latencyMs.p50} ms  p99 ${row.latencyMs.p99} ms  (median of ${PAIR_ROUNDS} rounds, alternated: ${row.rounds.map((r) => r.toFixed(0)).join(', ')} req/s)`,
            );
          }
        } finally {
          await pair.done?.(sides);
        }
        if (pair.names.includes('put-update-webhook')) {
          // Whether delivery kept up with the writes, and what the rest cost once they stopped.
          const { inPhase, drained } = webhook;
          say(
            `    webhook: ${inPhase.events} events delivered during the measured phases of put-update-webhook, which made ${inPhase.puts} PUTs; ${drained.events} delivered while the server drained after its rounds (the warm-up's not counted), at ${drained.events ? ((drained.cpuSeconds * 1000) / drained.events).toFixed(3) : '-'} ms of server CPU each`,
          );
        }
      }
      continue;
    }
    await scenario.prepare?.();
    // Metrics and access logs on or off, alone: on a second server freshly started on the same
    // database, for this scenario only (the main one stays idle meanwhile).
    const logs =
      scenario.target === 'api-logs' || scenario.target === 'api-fresh'
        ? await startObservedServer(scenario.target)
        : null;
    const target = isBaseline ? baseline : (logs?.child ?? server);
    if (!target.isAlive())
      throw new Error(`${target.name} is not running any more; see ${target.logFile}`);
    process.stdout.write(`  ${scenario.name.padEnd(18)} `);
    const row = await measure(scenario, {
      baseUrl: isBaseline ? baselineUrl : (logs?.url ?? baseUrl),
      connections: settings.connections,
      duration: settings.duration,
      warmup: settings.warmup,
      samplers: {
        server: isBaseline ? baselineSampler : (logs?.sampler ?? serverSampler),
        db: isBaseline ? null : dbSampler,
        hooks:
          settings.cpuProf && !isBaseline
            ? profileHooks(server.child, profileDir, scenario.name)
            : undefined,
      },
    });
    rows.push(row);
    say(
      `${row.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${row.latencyMs.p50} ms  p99 ${row.latencyMs.p99} ms  non-2xx ${row.non2xx}${row.valid ? '' : '  <-- INVALID'}`,
    );
    if (row.alongside) {
      say(
        `    ${row.alongside.scenario} alongside, one at a time: ${row.alongside.requests} requests, p50 ${row.alongside.p50} ms, p99 ${row.alongside.p99} ms`,
      );
    }
    await webhook.unsubscribe();
    if (logs) {
      await stopChild(logs.child.child);
      logs.sampler.stop();
    }
  }
  await stopChild(baseline.child);

  // Latency of a single request on an idle server: the service time, without the queue.
  const probeNames = [
    'get-one',
    'history-page',
    'get-all-10',
    'get-all-10k',
    'get-all-10k-304',
    'get-all-10k-limit-100',
    'public-list-10k',
    'public-list-10k-304',
    'changes-10k',
    'profile-10',
    'profile-10k',
    'statistics-10k',
  ];
  const probes = [];
  await serverSampler.waitIdle();
  for (const scenario of scenarios.filter((s) => probeNames.includes(s.name))) {
    if (settings.only && !settings.only.has(scenario.name)) continue;
    probes.push(await probeLatency(scenario, { baseUrl, seconds: settings.probeSeconds }));
  }

  if (!server.isAlive()) throw new Error(`the server died during the run; see ${server.logFile}`);
  await serverSampler.sample();
  const serverVmHwmMb = Math.round(serverSampler.hwmBytes / 2 ** 20);

  let soak = null;
  if (
    settings.soak &&
    (!settings.only || settings.only.has('soak') || settings.only.has('get-one'))
  ) {
    // A fresh server, so that the soak's memory figures are its own and not the heap the GET-all
    // scenarios left behind; warmed up first, so that the first window is not JIT warm-up.
    say(
      `soak: fresh server, ${SOAK_WARMUP_SECONDS} s warm-up, then ${settings.soakSeconds} s of get-one…`,
    );
    await stopChild(server.child);
    serverSampler.stop();
    const fresh = await startServer('server-soak');
    const getOne = /** @type {import('./lib/load.mjs').Scenario} */ (
      scenarios.find((s) => s.name === 'get-one')
    );
    await warm(getOne, {
      baseUrl,
      connections: settings.connections,
      seconds: SOAK_WARMUP_SECONDS,
    });
    await fresh.sampler.waitIdle();
    soak = await runSoak(getOne, {
      baseUrl,
      connections: settings.connections,
      seconds: settings.soakSeconds,
      samplers: { server: fresh.sampler, db: dbSampler },
    });
    if (!fresh.child.isAlive()) {
      throw new Error(`the server died during the soak; see ${fresh.child.logFile}`);
    }
  }

  let catalogImport = null;
  if (wanted('catalog-import-40k')) {
    const file = await writeOfflineDatabase(tmpDir, 40_000);
    const run = await runNodeWithPeakRss(
      ['dist/cli.js', 'catalog', 'import', '--format', 'anime-offline-database', file],
      { cwd: ROOT, env },
    );
    catalogImport = {
      items: 40_000,
      seconds: Math.round(run.seconds * 10) / 10,
      peakRssMb: run.peakRssMb,
      output: run.stdout.trim().slice(0, 500),
    };
    say(
      `catalog-import-40k: ${catalogImport.seconds} s, CLI peak RSS ${catalogImport.peakRssMb} MB: ${catalogImport.output}`,
    );
  }

  const baselineRps = baselineRequestsPerSecond(rows);
  say('');
  say(formatTable(rows, baselineRps));
  say(
    "× baseline: req/s ÷ the mean of the two baseline runs; CPU × base: server CPU per request ÷ the baseline server's",
  );
  if (probes.length > 0) {
    say('');
    say(formatProbes(probes));
  }
  if (soak) {
    say('');
    say(
      `soak (${soak.seconds} s get-one, ${soak.connections} connections): ${soak.requestsPerSecond.toFixed(0)} req/s; first ${soak.windowSeconds} s ${soak.firstWindowRequestsPerSecond} req/s, last ${soak.windowSeconds} s ${soak.lastWindowRequestsPerSecond} req/s (×${soak.lastOverFirst}); server RSS ${soak.serverRssStartMb} → ${soak.serverRssEndMb} MB, peak ${soak.serverPeakRssMb} MB`,
    );
  }
  say(`server VmHWM over seeding and scenarios (before the soak): ${serverVmHwmMb} MB`);

  const verdicts = judgeTargets({
    db,
    rows,
    probes,
    soak,
    malImport,
    catalogImport,
    // The whole bench's peak only when the whole bench ran.
    serverVmHwmMb: settings.only ? null : serverVmHwmMb,
  });
  say('');
  say('Targets:');
  say(formatVerdicts(verdicts));
  say('');
  for (const line of await compareWithPrevious(RESULTS_DIR, db, verdicts)) say(line);

  const invalid = invalidFigures(rows, probes, soak);
  const results = {
    date: new Date().toISOString(),
    db,
    settings: { ...settings, only: settings.only ? [...settings.only] : null },
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      note: 'load generator (this process), server, baseline and database share the same cores',
    },
    userAgent: USER_AGENT,
    seed: { catalog: imported, animeTitles: ANIME_TITLES, fill: filled },
    getOneResponseBytes: Buffer.byteLength(sample.body),
    scenarios: rows,
    latencyProbes: probes,
    soak,
    malImport,
    catalogImport,
    serverVmHwmMb,
    targets: verdicts,
    valid: invalid.length === 0,
    invalid,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
  };
  const file = await writeResults(RESULTS_DIR, db, results);
  say('');
  say(`results: ${file}`);
  if (args['save-reference']) {
    const reference = referenceFile(RESULTS_DIR, db);
    await mkdir(dirname(reference), { recursive: true });
    await writeFile(reference, `${JSON.stringify(results, null, 2)}\n`);
    say(`reference: ${reference}`);
  }
  if (settings.cpuProf) say(`CPU profiles: ${profileDir}`);

  if (invalid.length > 0) {
    say('');
    say('!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!');
    say('!! INVALID RUN: too many non-2xx answers or errors; these figures are worthless:');
    for (const line of invalid) say(`!!   ${line}`);
    say(
      `!! server log: ${server.logFile}${args.keep ? '' : ' (re-run with --keep to inspect it)'}`,
    );
    say('!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!');
    return 1;
  }
  return 0;
}

/**
 * What the sync scenarios need from the 10k list: a cursor 10 writes behind (a first sync in pages
 * of 1000, then 10 PUTs) and the ETag of the list after those writes.
 * @param {string} baseUrl
 * @param {Record<string, string>} tokens
 */
async function prepareSyncScenarios(baseUrl, tokens) {
  const client = new HttpClient(baseUrl, 1);
  const headers = apiHeaders(tokens['10k']);
  try {
    const started = Date.now();
    let cursor = '';
    let calls = 0;
    for (let more = true; more; calls++) {
      const query = cursor ? `&since=${cursor}` : '';
      const page = await client.request('GET', `/v1/my/anime/changes?limit=1000${query}`, {
        headers,
      });
      if (page.status !== 200) throw new Error(`changes answered ${page.status}: ${page.body}`);
      const parsed = /** @type {unknown} */ (JSON.parse(page.body));
      const body = /** @type {{ cursor: string, has_more: boolean }} */ (parsed);
      cursor = body.cursor;
      more = body.has_more;
    }
    const firstSyncSeconds = (Date.now() - started) / 1000;
    for (let id = 1; id <= 10; id++) {
      const put = await client.request('PUT', `/v1/my/anime/${id}/ratings`, {
        headers: apiHeaders(tokens['10k'], true),
        body: PUT_BODY,
      });
      if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${put.body}`);
    }
    const list = await client.request('GET', '/v1/my/anime/ratings', {
      headers,
      timeoutMs: 60_000,
    });
    const etag = list.headers?.etag;
    if (list.status !== 200 || typeof etag !== 'string') {
      throw new Error(`GET all answered ${list.status} without an ETag`);
    }
    // Another user's read of the same list's public view (half of it private).
    const publicList = await client.request('GET', PUBLIC_LIST_10K_PATH, {
      headers: apiHeaders(tokens['10']),
      timeoutMs: 60_000,
    });
    const publicEtag = publicList.headers?.etag;
    if (publicList.status !== 200 || typeof publicEtag !== 'string') {
      throw new Error(`the public list answered ${publicList.status} without an ETag`);
    }
    const parsedList = /** @type {unknown} */ (JSON.parse(publicList.body));
    const shown = /** @type {unknown[]} */ (parsedList).length;
    if (shown !== 5_000) throw new Error(`the public list showed ${shown} entries, not 5,000`);
    return { cursor, etag, publicEtag, firstSyncCalls: calls, firstSyncSeconds };
  } finally {
    client.close();
  }
}

const PUBLIC_LIST_10K_PATH = `/v1/users/${LIST_USERS.find((u) => u.key === HALF_PRIVATE_KEY)?.name}/anime/ratings`;

/**
 * @param {Record<string, string>} tokens
 * @param {string} getOnePath
 * @param {{ cursor: string, etag: string, publicEtag: string }} sync
 * @param {() => Promise<void>} subscribeWebhook put-update-webhook measured alone (`--only`)
 * @param {{ historyToken: string, progressToken: string } | null} history
 * @param {{ path: string } | null} scrobble scrobble-jellyfin's receiver path
 * @returns {import('./lib/load.mjs').Scenario[]}
 */
function buildScenarios(tokens, getOnePath, sync, subscribeWebhook, history, scrobble) {
  const get = (
    /** @type {string} */ name,
    /** @type {string} */ description,
    /** @type {string} */ path,
    /** @type {string} */ token,
  ) => ({
    name,
    description,
    target: /** @type {const} */ ('api'),
    method: 'GET',
    path,
    headers: apiHeaders(token),
  });
  // Each connection creates and deletes its own title (PUT, DELETE, PUT, …), so no two connections
  // touch the same entry; the writer's list holds only title 1, which put-update uses.
  let nextTitle = 2;
  const createDelete = {
    name: 'put-create-delete',
    description: 'PUT (create) then DELETE of a title of its own, alternating, per connection',
    target: /** @type {const} */ ('api'),
    // No Content-Type here: it would be sent with the bodiless DELETE too (Fastify: 400).
    headers: apiHeaders(tokens.writer),
    setupClient: (/** @type {import('autocannon').Client} */ client) => {
      const id = nextTitle++;
      if (id > ANIME_TITLES) throw new Error('put-create-delete ran out of titles');
      const path = `/v1/my/anime/${id}/ratings`;
      client.setRequests([
        { method: 'PUT', path, body: PUT_BODY, headers: apiHeaders(tokens.writer, true) },
        { method: 'DELETE', path, headers: apiHeaders(tokens.writer) },
      ]);
    },
  };
  return [
    {
      name: 'baseline',
      description: 'bare node:http, fixed JSON body of the GET one response size',
      target: 'baseline',
      headers: { 'user-agent': USER_AGENT },
    },
    get('get-one', 'GET /v1/my/anime/500/ratings (user with 1k entries)', getOnePath, tokens['1k']),
    {
      ...get(
        'get-one-fresh',
        'get-one on a freshly started server with METRICS_ENABLED=false and LOG_LEVEL=warn (no metrics, no access log): the reference of get-one-logs',
        getOnePath,
        tokens['1k'],
      ),
      target: 'api-fresh',
    },
    {
      ...get(
        'get-one-logs',
        'get-one on a freshly started server with metrics on and LOG_LEVEL=info: counted in /metrics and one access log line per request',
        getOnePath,
        tokens['1k'],
      ),
      target: 'api-logs',
    },
    get('get-all-10', 'GET /v1/my/anime/ratings, 10 entries', '/v1/my/anime/ratings', tokens['10']),
    get(
      'get-all-1k',
      'GET /v1/my/anime/ratings, 1,000 entries',
      '/v1/my/anime/ratings',
      tokens['1k'],
    ),
    {
      ...get(
        'get-all-10k',
        'GET /v1/my/anime/ratings, 10,000 entries',
        '/v1/my/anime/ratings',
        tokens['10k'],
      ),
      // One of these costs the server most of a second: at 50 connections the p50 would be the
      // length of the queue (tens of seconds), and barely any request would finish within the run.
      connections: 5,
    },
    {
      ...get(
        'get-all-10k-mixed',
        'get-all-10k, and GET one requested one at a time on a connection of its own alongside: whether other requests stay fast while big lists are read',
        '/v1/my/anime/ratings',
        tokens['10k'],
      ),
      connections: 5,
      alongside: get('get-one', 'GET one, alongside', getOnePath, tokens['1k']),
    },
    {
      ...get(
        'get-all-10k-304',
        'GET /v1/my/anime/ratings, 10,000 entries, If-None-Match: its ETag (304)',
        '/v1/my/anime/ratings',
        tokens['10k'],
      ),
      headers: { ...apiHeaders(tokens['10k']), 'if-none-match': sync.etag },
      expectedStatus: 304,
    },
    {
      ...get(
        'public-list-10k',
        'GET /v1/users/bench_list_10k/anime/ratings by another user: the 5,000 visible entries of the 10,000',
        PUBLIC_LIST_10K_PATH,
        tokens['10'],
      ),
      // As get-all-10k, so that the two p50s compare.
      connections: 5,
    },
    {
      ...get(
        'public-list-10k-304',
        'the public list of the 10,000-entry list, If-None-Match: its ETag (304)',
        PUBLIC_LIST_10K_PATH,
        tokens['10'],
      ),
      headers: { ...apiHeaders(tokens['10']), 'if-none-match': sync.publicEtag },
      expectedStatus: 304,
    },
    get(
      'get-all-10k-limit-100',
      'GET /v1/my/anime/ratings?limit=100&after=5000 (a page of a 10,000-entry list)',
      '/v1/my/anime/ratings?limit=100&after=5000',
      tokens['10k'],
    ),
    get(
      'changes-10k',
      'GET /v1/my/anime/changes?since=… : 10 changes on a 10,000-entry list',
      `/v1/my/anime/changes?since=${sync.cursor}`,
      tokens['10k'],
    ),
    {
      name: 'put-update',
      description: 'PUT /v1/my/anime/1/ratings, the same existing entry every time',
      target: 'api',
      method: 'PUT',
      path: '/v1/my/anime/1/ratings',
      headers: apiHeaders(tokens.writer, true),
      body: PUT_BODY,
    },
    {
      // Measured in alternation with put-update: the webhook is subscribed for its rounds only.
      name: 'put-update-webhook',
      description:
        'put-update with one webhook subscribed (a local receiver answering 204), in alternation with put-update',
      target: 'api',
      method: 'PUT',
      path: '/v1/my/anime/1/ratings',
      headers: apiHeaders(tokens.writer, true),
      body: PUT_BODY,
      prepare: subscribeWebhook,
    },
    // Every request raises episodes_watched of one of 1,000 titles of unknown episode count, so
    // each records a history event and moves an open viewing; otherwise as put-update.
    ...(history ? [putProgress(history.progressToken)] : []),
    // A media server's stop, as Jellyfin's Webhook plugin sends it (text/plain JSON), matched by
    // the user's mapping: each request the next episode of one of 1,000 titles, so each is `updated`.
    ...(scrobble ? [scrobbleJellyfin(scrobble.path)] : []),
    createDelete,
    ...(history
      ? [
          get(
            'history-page',
            `GET /v1/my/anime/history?limit=100&before=… : a page of 100 in the middle of a ${HISTORY_IMPORTS * HISTORY_TITLES}-event history`,
            `/v1/my/anime/history?limit=100&before=${(HISTORY_IMPORTS * HISTORY_TITLES) / 2}`,
            history.historyToken,
          ),
        ]
      : []),
    get('profile-10', 'GET /v1/my/profile, 10 entries', '/v1/my/profile', tokens['10']),
    get('profile-1k', 'GET /v1/my/profile, 1,000 entries', '/v1/my/profile', tokens['1k']),
    get('profile-10k', 'GET /v1/my/profile, 10,000 entries', '/v1/my/profile', tokens['10k']),
    get(
      'statistics-10k',
      `GET /v1/my/statistics/anime, the 10,000 entries of profile-10k on titles with year, season, format and 5–20 tags, and ${STATISTICS_EVENTS.toLocaleString('en')} history events over 24 months`,
      '/v1/my/statistics/anime',
      tokens['10k'],
    ),
    {
      // Measured again at the end: other load on the machine drifts, and the ratios use the mean.
      name: 'baseline-end',
      description: 'the baseline again, after the API scenarios',
      target: 'baseline',
      headers: { 'user-agent': USER_AGENT },
    },
  ];
}

/** History events of the 10k list for statistics-10k: filling it wrote one per entry. */
const STATISTICS_EVENTS = 100_000;
const STATISTICS_MONTHS_MS = 730 * 86_400_000;

/**
 * statistics-10k's history: the 10k list's events, filled up to STATISTICS_EVENTS with events of
 * source api and scrobble spread over the last 24 months. A test cannot write in the past through
 * the API, so these rows are inserted into `history_events` directly, shaped as the write path
 * records them (a rise of episodes_watched; every 10th completes the title, every 50th restarts a
 * rewatch).
 * @param {import('./lib/database.mjs').BenchDatabase} database
 */
async function prepareStatisticsScenario(database) {
  const started = Date.now();
  const user = LIST_USERS.find((u) => u.key === '10k');
  const row = await selectRow(database, 'SELECT id FROM users WHERE name = ?', [user?.name]);
  const userId = Number(row?.id);
  const counted = await selectRow(
    database,
    "SELECT COUNT(*) AS n FROM history_events WHERE user_id = ? AND media_type = 'anime'",
    [userId],
  );
  const existing = Number(counted?.n ?? 0);
  const now = Date.now();
  /** @type {(string | number | null)[][]} */
  const rows = [];
  for (let i = 0; i < STATISTICS_EVENTS - existing; i++) {
    const from = i % 12;
    rows.push([
      userId,
      'anime',
      10_000_000 + i,
      1 + ((i * 7919) % 10_000),
      now - Math.floor((i / STATISTICS_EVENTS) * STATISTICS_MONTHS_MS),
      i % 3 === 0 ? 'scrobble' : 'api',
      1,
      i % 10 === 0 ? 'completed' : null,
      from,
      from + 1 + (i % 3),
      i % 50 === 0 ? 1 : 0,
    ]);
  }
  await insertRows(
    database,
    'history_events',
    [
      'user_id',
      'media_type',
      'id',
      'title_id',
      'at_ms',
      'source',
      'viewing',
      'status_to',
      'episodes_watched_from',
      'episodes_watched_to',
      'restarted',
    ],
    rows,
  );
  return {
    events: existing + rows.length,
    inserted: rows.length,
    seconds: (Date.now() - started) / 1000,
  };
}

/** The history-page list: HISTORY_IMPORTS imports of HISTORY_TITLES elements, one event each. */
const HISTORY_TITLES = 10_000;
const HISTORY_IMPORTS = 20;

/**
 * The users of the history scenarios: one whose anime list has HISTORY_IMPORTS × HISTORY_TITLES
 * history events, written by `lists import` (each import alternates every element's episodes, so
 * that each writes an event), and one for put-progress, whose list it writes.
 * @param {{ tmpDir: string, cli: (...args: string[]) => Promise<string> }} options
 */
async function prepareHistoryScenarios({ tmpDir, cli }) {
  const started = Date.now();
  /** @type {Record<string, string>} */
  const userTokens = {};
  for (const name of ['bench_history', 'bench_progress']) {
    await cli('users', 'create', '--name', name);
    userTokens[name] = (
      await cli('tokens', 'issue', '--user', name, '--scopes', SCOPES, '--ttl', '86400')
    ).trim();
  }
  const file = join(tmpDir, 'history.xml');
  let events = 0;
  for (let round = 0; round < HISTORY_IMPORTS; round++) {
    const parts = [
      '<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n<myinfo><user_export_type>1</user_export_type></myinfo>\n',
    ];
    for (let id = 1; id <= HISTORY_TITLES; id++) {
      parts.push(
        `<anime><series_animedb_id>${100_000 + id}</series_animedb_id><my_status>Watching</my_status>` +
          `<my_watched_episodes>${1 + (round % 2)}</my_watched_episodes><update_on_import>1</update_on_import></anime>\n`,
      );
    }
    parts.push('</myanimelist>\n');
    await writeFile(file, parts.join(''));
    const printed = /** @type {string} */ (
      await cli('lists', 'import', '--user', 'bench_history', '--media-type', 'anime', file)
    );
    const parsed = /** @type {unknown} */ (JSON.parse(printed.trim()));
    const summary = /** @type {{ created: number, updated: number }} */ (parsed);
    events += summary.created + summary.updated;
  }
  if (events !== HISTORY_IMPORTS * HISTORY_TITLES) {
    throw new Error(
      `the history imports wrote ${events} events, not ${HISTORY_IMPORTS * HISTORY_TITLES}`,
    );
  }
  return {
    historyToken: userTokens.bench_history,
    progressToken: userTokens.bench_progress,
    events,
    seconds: (Date.now() - started) / 1000,
  };
}

/**
 * put-progress: PUTs that each raise episodes_watched, over the 1,000 titles whose episode count
 * is unknown (every 10th: the cap is 100,000), so that each write records an event.
 * @param {string} token
 * @returns {import('./lib/load.mjs').Scenario}
 */
function putProgress(token) {
  let sent = 0;
  const titles = 1_000;
  return {
    name: 'put-progress',
    description:
      'PUT /v1/my/anime/{id}/ratings raising episodes_watched every time (1,000 titles in turn): each writes a history event',
    target: 'api',
    method: 'PUT',
    path: '/v1/my/anime/10/ratings',
    headers: apiHeaders(token, true),
    body: PUT_BODY,
    setupClient: (/** @type {import('autocannon').Client} */ client) => {
      client.setRequests([
        {
          method: 'PUT',
          headers: apiHeaders(token, true),
          setupRequest: (request) => {
            const n = sent++;
            return {
              ...request,
              path: `/v1/my/anime/${10 * (1 + (n % titles))}/ratings`,
              body: JSON.stringify({
                status: 'ongoing',
                public_rating: 8,
                episodes_watched: 1 + Math.floor(n / titles),
              }),
            };
          },
        },
      ]);
    },
  };
}

/** The titles of scrobble-jellyfin: the 1,000 of unknown episode count, as put-progress's. */
const SCROBBLE_TITLES = 1_000;

/**
 * scrobble-jellyfin's user: a jellyfin scrobbler, a mapping per title ("Bench Show N", season 2,
 * to anime 10·N: every request is matched by rule 2, none by a name) and an entry of each.
 * @param {{ baseUrl: string, cli: (...args: string[]) => Promise<string> }} options
 */
async function prepareScrobbleScenario({ baseUrl, cli }) {
  const started = Date.now();
  await cli('users', 'create', '--name', 'bench_scrobble');
  const token = (
    await cli('tokens', 'issue', '--user', 'bench_scrobble', '--scopes', SCOPES, '--ttl', '86400')
  ).trim();
  const client = new HttpClient(baseUrl, 1);
  try {
    const created = await client.request('POST', '/v1/my/scrobblers', {
      headers: apiHeaders(token, true),
      body: JSON.stringify({ kind: 'jellyfin', name: 'Bench' }),
    });
    if (created.status !== 201) throw new Error(`POST scrobblers answered ${created.status}`);
    const parsed = /** @type {unknown} */ (JSON.parse(created.body));
    const path = new URL(/** @type {{ url: string }} */ (parsed).url).pathname;
    for (let n = 1; n <= SCROBBLE_TITLES; n++) {
      const mapped = await client.request('PUT', '/v1/my/scrobble-mappings', {
        headers: apiHeaders(token, true),
        body: JSON.stringify({ series: `Bench Show ${n}`, season: 2, title_id: 10 * n }),
      });
      if (mapped.status !== 200) throw new Error(`PUT scrobble-mappings answered ${mapped.status}`);
      // An entry already there: every scrobble of the scenario is `updated`, none `created`.
      const put = await client.request('PUT', `/v1/my/anime/${10 * n}/ratings`, {
        headers: apiHeaders(token, true),
        body: JSON.stringify({ status: 'ongoing', episodes_watched: 0 }),
      });
      if (put.status !== 200) throw new Error(`PUT ratings answered ${put.status}`);
    }
    return { path, mappings: SCROBBLE_TITLES, seconds: (Date.now() - started) / 1000 };
  } finally {
    client.close();
  }
}

/**
 * scrobble-jellyfin: POST /scrobble/{secret} with a PlaybackStop of the Jellyfin Webhook plugin
 * ("Send All Properties", text/plain), each the next episode of one of 1,000 mapped titles.
 * @param {string} path
 * @returns {import('./lib/load.mjs').Scenario}
 */
function scrobbleJellyfin(path) {
  let sent = 0;
  const headers = {
    'content-type': 'text/plain; charset=utf-8',
    'user-agent': 'Jellyfin-Server/10.10.3',
  };
  const payload = (/** @type {number} */ n) =>
    JSON.stringify({
      ServerId: '0f9c6a1b7d2e4f6a8b1c3d5e7f9a0b2c',
      ServerName: 'living-room',
      ServerVersion: '10.10.3',
      NotificationType: 'PlaybackStop',
      Name: 'Episode',
      ItemId: '3f1e2d4c5b6a79880a1b2c3d4e5f6071',
      ItemType: 'Episode',
      RunTimeTicks: 14400000000,
      SeriesName: `Bench Show ${1 + (n % SCROBBLE_TITLES)}`,
      SeasonNumber: 2,
      EpisodeNumber: 1 + Math.floor(n / SCROBBLE_TITLES),
      Provider_tvdb: '9350138',
      PlaybackPositionTicks: 14388000000,
      IsPaused: false,
      DeviceName: 'Firefox',
      ClientName: 'Jellyfin Web',
      NotificationUsername: 'alice',
      UserId: '5c4b3a29180706f5e4d3c2b1a0918273',
      PlayedToCompletion: true,
    });
  return {
    name: 'scrobble-jellyfin',
    description:
      'POST /scrobble/{secret}: a Jellyfin PlaybackStop (text/plain JSON) matched by mapping, each the next episode of one of 1,000 titles: each is `updated`',
    target: 'api',
    method: 'POST',
    path,
    headers,
    body: payload(0),
    setupClient: (/** @type {import('autocannon').Client} */ client) => {
      client.setRequests([
        {
          method: 'POST',
          headers,
          setupRequest: (request) => ({ ...request, path, body: payload(sent++) }),
        },
      ]);
    },
  };
}

let messageId = 0;
/**
 * Per-scenario CPU profiles, through the IPC channel of cpu-prof-preload.mjs.
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} dir
 * @param {string} name
 */
function profileHooks(child, dir, name) {
  /** @param {Record<string, unknown>} message */
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = ++messageId;
      const timer = setTimeout(
        () => reject(new Error('the server did not answer the profiler request')),
        30_000,
      );
      /** @param {{ id?: number, ok?: boolean, error?: string }} reply */
      const onMessage = (reply) => {
        if (reply.id !== id) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        if (reply.ok) resolve(undefined);
        else reject(new Error(reply.error));
      };
      child.on('message', onMessage);
      child.send({ id, ...message });
    });
  return {
    before: async () => {
      const { mkdir } = await import('node:fs/promises');
      await mkdir(dir, { recursive: true });
      await ask({ cmd: 'start' });
    },
    after: () => ask({ cmd: 'stop', file: join(dir, `${name}.cpuprofile`) }).then(() => undefined),
  };
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (error) {
  // After Ctrl-C, the error is only the echo of the children being stopped.
  if (!interrupted) {
    process.stderr.write(
      `\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
  }
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);

/**
 * @typedef {{
 *   child: ReturnType<typeof startChild>,
 *   sampler: ProcSampler,
 *   db?: ProcSampler | null,
 *   url: string,
 *   enter?: () => Promise<unknown>,
 *   phase?: { before: () => Promise<void>, after: () => Promise<void> },
 *   leave?: (row: Awaited<ReturnType<typeof measure>>) => Promise<void>,
 * }} PairSide
 */

/**
 * The two scenarios of a pair measured in alternation (A B, B A, A B, …) and reported as each
 * side's median round: the machine's speed drifts within a run (the two baselines of one run
 * differ by up to 2×), and two phases measured minutes apart measured that drift as much as what
 * they compare. `enter` sets a side up before each of its rounds, `phase` runs at the start and
 * end of its measured phase, `leave` looks at its result.
 * @param {import('./lib/load.mjs').Scenario[]} pair
 * @param {PairSide[]} sides
 * @param {(scenario: import('./lib/load.mjs').Scenario, round: number) => import('./lib/load.mjs').Samplers['hooks']} hooksFor
 */
async function measurePair(pair, sides, hooksFor) {
  /** @type {Awaited<ReturnType<typeof measure>>[][]} */
  const rounds = pair.map(() => []);
  for (let round = 0; round < PAIR_ROUNDS; round++) {
    // Whichever side went first in a round goes second in the next, so a drift of the machine's
    // speed within the round weighs on both alike.
    const order = round % 2 === 0 ? [...pair.keys()] : [...pair.keys()].reverse();
    for (const i of order) {
      const side = sides[i];
      if (!side.child.isAlive()) throw new Error(`${side.child.name} is not running any more`);
      await side.enter?.();
      const profile = hooksFor(pair[i], round);
      const row = await measure(pair[i], {
        baseUrl: side.url,
        connections: settings.connections,
        duration: settings.duration,
        warmup: round === 0 ? settings.warmup : 0,
        samplers: {
          server: side.sampler,
          db: side.db ?? null,
          hooks: {
            before: async () => {
              await side.phase?.before();
              await profile?.before?.();
            },
            after: async () => {
              await profile?.after?.();
              await side.phase?.after();
            },
          },
        },
      });
      await side.leave?.(row);
      rounds[i].push(row);
    }
  }
  return rounds.map((measured) => {
    const sorted = [...measured].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
    return {
      ...sorted[Math.floor(sorted.length / 2)],
      rounds: measured.map((r) => r.requestsPerSecond),
    };
  });
}

/**
 * POST /v1/my/anime/import of a 10,000-entry MyAnimeList export by a new user, on a fresh server
 * (its own port), so that its VmHWM is the import's and not the scenarios'.
 * @param {{ tmpDir: string, env: NodeJS.ProcessEnv, cli: (...args: string[]) => Promise<string>, startServer: (name: string, at: { url: string, env: NodeJS.ProcessEnv }) => Promise<{ child: ReturnType<typeof startChild>, sampler: ProcSampler }> }} options
 */
async function measureMalImport({ tmpDir, env, cli, startServer }) {
  const file = await writeMalExport(tmpDir, 10_000);
  await cli('users', 'create', '--name', 'bench_mal_import');
  const token = (
    await cli('tokens', 'issue', '--user', 'bench_mal_import', '--scopes', SCOPES, '--ttl', '86400')
  ).trim();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, sampler } = await startServer('server-import', {
    url,
    env: { ...env, PORT: String(port) },
  });
  const client = new HttpClient(url, 1);
  try {
    const { readFile } = await import('node:fs/promises');
    const body = await readFile(file, 'utf8');
    await sampler.sample();
    const bootRssMb = Math.round(sampler.hwmBytes / 2 ** 20);
    const started = process.hrtime.bigint();
    const response = await client.request('POST', '/v1/my/anime/import', {
      headers: { ...apiHeaders(token), 'content-type': 'application/xml' },
      body,
      timeoutMs: 300_000,
    });
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    if (response.status !== 200) {
      throw new Error(`the import answered ${response.status}: ${response.body.slice(0, 300)}`);
    }
    const json = /** @type {unknown} */ (JSON.parse(response.body));
    const parsed =
      /** @type {{ created: number, updated: number, unchanged: number, skipped: unknown[] }} */ (
        json
      );
    await sampler.sample();
    return {
      entries: 10_000,
      bytes: Buffer.byteLength(body),
      seconds: Math.round(seconds * 100) / 100,
      serverBootRssMb: bootRssMb,
      serverPeakRssMb: Math.round(sampler.hwmBytes / 2 ** 20),
      counts: {
        created: parsed.created,
        updated: parsed.updated,
        unchanged: parsed.unchanged,
        skipped: parsed.skipped.length,
      },
    };
  } finally {
    client.close();
    await stopChild(child.child);
    sampler.stop();
  }
}
