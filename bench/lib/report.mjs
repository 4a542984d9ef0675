// The bench's output: a table, the PASS/GAP lines against the targets, and the results JSON.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_BAD_SHARE, round } from './load.mjs';

/** @typedef {Awaited<ReturnType<typeof import('./load.mjs').measure>>} Row */
/** @typedef {Awaited<ReturnType<typeof import('./load.mjs').probeLatency>>} Probe */
/** @typedef {Awaited<ReturnType<typeof import('./load.mjs').soak>>} Soak */
/** @typedef {{ status: 'PASS' | 'GAP' | 'N/A', target: string, measured: string }} Verdict */

/**
 * The baseline's req/s: the mean of its runs at the start and at the end of the scenarios.
 * @param {Row[]} rows
 * @returns {number | null}
 */
export function baselineRequestsPerSecond(rows) {
  const runs = rows.filter((r) => r.scenario.startsWith('baseline'));
  if (runs.length === 0) return null;
  return runs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / runs.length;
}

/**
 * @param {Row[]} rows
 * @param {number | null} baselineRps
 */
export function formatTable(rows, baselineRps) {
  const baselineRuns = rows.filter((r) => r.scenario.startsWith('baseline'));
  const baselineCpu =
    baselineRuns.reduce((sum, r) => sum + (r.serverCpuMsPerRequest ?? 0), 0) /
    Math.max(1, baselineRuns.length);
  const header = [
    'scenario',
    'conns',
    'req/s',
    'p50 ms',
    'p99 ms',
    '× baseline',
    'non-2xx',
    'err+t/o',
    'srv CPU ms/req',
    'CPU × base',
    'db CPU ms/req',
    'peak RSS MB',
  ];
  const lines = rows.map((row) => [
    row.scenario,
    String(row.connections),
    row.requestsPerSecond.toFixed(0),
    String(row.latencyMs.p50),
    String(row.latencyMs.p99),
    baselineRps ? (row.requestsPerSecond / baselineRps).toFixed(2) : '-',
    `${row.non2xx}${row.valid ? '' : ' !!'}`,
    String(row.errors + row.timeouts),
    row.serverCpuMsPerRequest === null ? '-' : row.serverCpuMsPerRequest.toFixed(3),
    row.serverCpuMsPerRequest === null || !baselineCpu
      ? '-'
      : (row.serverCpuMsPerRequest / baselineCpu).toFixed(1),
    row.dbCpuMsPerRequest === null ? '-' : row.dbCpuMsPerRequest.toFixed(3),
    row.serverPeakRssMb.toFixed(0),
  ]);
  return table(header, lines);
}

/** @param {Probe[]} probes */
export function formatProbes(probes) {
  return table(
    ['scenario (1 connection)', 'requests', 'p50 ms', 'p99 ms', 'non-2xx'],
    probes.map((p) => [
      p.scenario,
      String(p.requests),
      p.p50.toFixed(2),
      p.p99.toFixed(2),
      `${p.non2xx}${p.valid ? '' : ' !!'}`,
    ]),
  );
}

/**
 * @param {string[]} header
 * @param {string[][]} lines
 */
function table(header, lines) {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (/** @type {string[]} */ cells) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join(
    '\n',
  );
}

/**
 * The targets of the brief, judged on this run. Latency targets are judged on the loaded figures
 * (the scenario's connection count) and, as a second line, on the one-connection probe (service
 * time without queueing), because under many connections p50 mostly measures the queue
 * (Little's law).
 * @param {{ db: 'sqlite' | 'mysql', rows: Row[], probes: Probe[], soak: Soak | null, malImport?: { seconds: number, serverPeakRssMb: number, serverBootRssMb: number } | null, catalogImport?: { items: number, seconds: number, peakRssMb: number, output: string } | null, serverVmHwmMb?: number | null }} run
 * @returns {Verdict[]}
 */
export function judgeTargets({
  db,
  rows,
  probes,
  soak,
  malImport = null,
  catalogImport = null,
  serverVmHwmMb = null,
}) {
  const row = (/** @type {string} */ name) => rows.find((r) => r.scenario === name);
  const probe = (/** @type {string} */ name) => probes.find((p) => p.scenario === name);
  const baselineRps = baselineRequestsPerSecond(rows);
  /** @type {Verdict[]} */
  const verdicts = [];
  /**
   * @param {string} target
   * @param {number | undefined | null} value
   * @param {(v: number) => boolean} ok
   * @param {(v: number) => string} show
   */
  const judge = (target, value, ok, show) => {
    if (value === undefined || value === null || Number.isNaN(value)) {
      verdicts.push({ status: 'N/A', target, measured: 'not measured in this run' });
    } else {
      verdicts.push({ status: ok(value) ? 'PASS' : 'GAP', target, measured: show(value) });
    }
  };
  const ratio = (/** @type {string} */ name) => {
    const r = row(name);
    return r && baselineRps ? r.requestsPerSecond / baselineRps : undefined;
  };
  const vsBaseline = (/** @type {string} */ name) => (/** @type {number} */ v) =>
    `${v.toFixed(2)}× (${row(name)?.requestsPerSecond.toFixed(0)} vs ${baselineRps?.toFixed(0)} req/s)`;

  const getOneMin = db === 'sqlite' ? 0.5 : 0.2;
  judge(
    `GET one ≥ ${getOneMin.toFixed(2)}× baseline req/s`,
    ratio('get-one'),
    (v) => v >= getOneMin,
    vsBaseline('get-one'),
  );
  if (db === 'sqlite') {
    judge(
      'PUT update ≥ 0.30× baseline req/s',
      ratio('put-update'),
      (v) => v >= 0.3,
      vsBaseline('put-update'),
    );
  } else {
    verdicts.push({
      status: 'N/A',
      target: 'PUT update ≥ 0.30× baseline req/s (SQLite only)',
      measured: `${ratio('put-update')?.toFixed(2) ?? '-'}× on MariaDB, for information`,
    });
  }

  const putProgress = row('put-progress')?.requestsPerSecond;
  const putUpdate = row('put-update')?.requestsPerSecond;
  judge(
    'PUT progress (an event per write) ≥ 0.90× PUT update req/s',
    putProgress !== undefined && putUpdate ? putProgress / putUpdate : undefined,
    (v) => v >= 0.9,
    (v) => `${v.toFixed(2)}× (${putProgress?.toFixed(0)} vs ${putUpdate?.toFixed(0)} req/s)`,
  );

  const scrobble = row('scrobble-jellyfin')?.requestsPerSecond;
  judge(
    'scrobble (Jellyfin, matched by mapping, each updated) ≥ 0.90× PUT progress req/s',
    scrobble !== undefined && putProgress ? scrobble / putProgress : undefined,
    (v) => v >= 0.9,
    (v) => `${v.toFixed(2)}× (${scrobble?.toFixed(0)} vs ${putProgress?.toFixed(0)} req/s)`,
  );

  const p50Ratio = (
    /** @type {number | undefined} */ big,
    /** @type {number | undefined} */ small,
  ) => (big === undefined || small === undefined ? undefined : big / Math.max(small, 0.01));
  const p50At = (/** @type {string} */ name) => row(name)?.latencyMs.p50;
  judge(
    'history page of 100 (200,000 events) p50 ≤ 2× GET one p50 (1 connection)',
    p50Ratio(probe('history-page')?.p50, probe('get-one')?.p50),
    (v) => v <= 2,
    (v) => `${v.toFixed(1)}× (${probe('history-page')?.p50} ms vs ${probe('get-one')?.p50} ms)`,
  );
  judge(
    `profile p50 at 10k ≤ 3× p50 at 10 (${row('profile-10k')?.connections ?? '-'} connections)`,
    p50Ratio(p50At('profile-10k'), p50At('profile-10')),
    (v) => v <= 3,
    (v) => `${v.toFixed(1)}× (${p50At('profile-10k')} ms vs ${p50At('profile-10')} ms)`,
  );
  judge(
    'profile p50 at 10k ≤ 3× p50 at 10 (1 connection)',
    p50Ratio(probe('profile-10k')?.p50, probe('profile-10')?.p50),
    (v) => v <= 3,
    (v) => `${v.toFixed(1)}× (${probe('profile-10k')?.p50} ms vs ${probe('profile-10')?.p50} ms)`,
  );
  judge(
    `statistics p50 at 10k ≤ 3× profile p50 at 10k (${row('statistics-10k')?.connections ?? '-'} connections)`,
    p50Ratio(p50At('statistics-10k'), p50At('profile-10k')),
    (v) => v <= 3,
    (v) => `${v.toFixed(1)}× (${p50At('statistics-10k')} ms vs ${p50At('profile-10k')} ms)`,
  );
  judge(
    'statistics p50 at 10k ≤ 3× profile p50 at 10k (1 connection)',
    p50Ratio(probe('statistics-10k')?.p50, probe('profile-10k')?.p50),
    (v) => v <= 3,
    (v) =>
      `${v.toFixed(1)}× (${probe('statistics-10k')?.p50} ms vs ${probe('profile-10k')?.p50} ms)`,
  );
  if (db === 'sqlite') {
    judge(
      `GET all 10k p50 ≤ 150 ms (${row('get-all-10k')?.connections ?? '-'} connections)`,
      p50At('get-all-10k'),
      (v) => v <= 150,
      (v) => `${v} ms`,
    );
    judge(
      'GET all 10k p50 ≤ 150 ms (1 connection)',
      probe('get-all-10k')?.p50,
      (v) => v <= 150,
      (v) => `${v} ms`,
    );
    const alongside = row('get-all-10k-mixed')?.alongside;
    judge(
      `GET one p99 ≤ 20 ms on a connection of its own while GET all 10k runs at ${row('get-all-10k-mixed')?.connections ?? '-'} connections`,
      alongside?.p99,
      (v) => v <= 20,
      (v) => `${v} ms (p50 ${alongside?.p50} ms, ${alongside?.requests} requests)`,
    );
  } else {
    verdicts.push({
      status: 'N/A',
      target: 'GET all 10k p50 ≤ 150 ms (SQLite only)',
      measured: `${p50At('get-all-10k') ?? '-'} ms at ${row('get-all-10k')?.connections ?? '-'} connections, ${probe('get-all-10k')?.p50 ?? '-'} ms at 1, for information`,
    });
  }
  judge(
    `public list of a 10k list, half private: p50 ≤ 1.2× GET all 10k p50 (${row('public-list-10k')?.connections ?? '-'} connections)`,
    p50Ratio(p50At('public-list-10k'), p50At('get-all-10k')),
    (v) => v <= 1.2,
    (v) => `${v.toFixed(2)}× (${p50At('public-list-10k')} ms vs ${p50At('get-all-10k')} ms)`,
  );
  judge(
    'public list of a 10k list, half private: p50 ≤ 1.2× GET all 10k p50 (1 connection)',
    p50Ratio(probe('public-list-10k')?.p50, probe('get-all-10k')?.p50),
    (v) => v <= 1.2,
    (v) =>
      `${v.toFixed(2)}× (${probe('public-list-10k')?.p50} ms vs ${probe('get-all-10k')?.p50} ms)`,
  );
  for (const [name, what] of [
    ['changes-10k', 'changes feed, 10 changes on a 10k list,'],
    ['get-all-10k-304', 'conditional GET all 10k answering 304,'],
    ['public-list-10k-304', 'conditional public list of a 10k list answering 304,'],
  ]) {
    judge(
      `${what} p50 ≤ 2× GET one p50 (1 connection)`,
      p50Ratio(probe(name)?.p50, probe('get-one')?.p50),
      (v) => v <= 2,
      (v) => `${v.toFixed(2)}× (${probe(name)?.p50} ms vs ${probe('get-one')?.p50} ms)`,
    );
  }
  const vsRow = (/** @type {string} */ name, /** @type {string} */ reference) => {
    const a = row(name);
    const b = row(reference);
    return a && b && b.requestsPerSecond > 0
      ? a.requestsPerSecond / b.requestsPerSecond
      : undefined;
  };
  const showVsRow =
    (/** @type {string} */ name, /** @type {string} */ reference) => (/** @type {number} */ v) =>
      `${v.toFixed(2)}× (${row(name)?.requestsPerSecond.toFixed(0)} vs ${row(reference)?.requestsPerSecond.toFixed(0)} req/s)`;
  judge(
    'GET one with metrics and access logs on ≥ 0.9× GET one with both off (each on a fresh server)',
    vsRow('get-one-logs', 'get-one-fresh'),
    (v) => v >= 0.9,
    showVsRow('get-one-logs', 'get-one-fresh'),
  );
  judge(
    'PUT update with one webhook subscribed ≥ 0.8× PUT update without',
    vsRow('put-update-webhook', 'put-update'),
    (v) => v >= 0.8,
    showVsRow('put-update-webhook', 'put-update'),
  );
  const onSqlite = (/** @type {string} */ target) =>
    db === 'sqlite' ? target : `${target} (SQLite target; for information)`;
  judge(
    onSqlite('MyAnimeList import of 10,000 entries < 10 s'),
    malImport?.seconds,
    (v) => v < 10 || db !== 'sqlite',
    (v) => `${v} s`,
  );
  judge(
    onSqlite('MyAnimeList import of 10,000 entries: server peak RSS < 250 MB'),
    malImport?.serverPeakRssMb,
    (v) => v < 250 || db !== 'sqlite',
    (v) => `${v} MB (VmHWM; ${malImport?.serverBootRssMb} MB before the import)`,
  );
  judge(
    onSqlite('catalog import of a 40,000-item anime-offline-database < 60 s'),
    catalogImport?.seconds,
    (v) => v < 60 || db !== 'sqlite',
    (v) => `${v} s`,
  );
  judge(
    onSqlite('catalog import of a 40,000-item anime-offline-database: CLI peak RSS < 250 MB'),
    catalogImport?.peakRssMb,
    (v) => v < 250 || db !== 'sqlite',
    (v) => `${v} MB`,
  );
  judge(
    `soak: req/s of the last ${soak?.windowSeconds ?? 10} s ≥ 0.9× the first`,
    soak?.lastOverFirst,
    (v) => v >= 0.9,
    (v) =>
      `${v.toFixed(2)}× (${soak?.firstWindowRequestsPerSecond} → ${soak?.lastWindowRequestsPerSecond} req/s)`,
  );
  judge(
    'server peak RSS over seeding and every scenario ≤ 250 MB',
    serverVmHwmMb,
    (v) => v <= 250,
    (v) => `${v} MB (VmHWM)`,
  );
  judge(
    'soak: server peak RSS ≤ 250 MB',
    soak?.serverPeakRssMb,
    (v) => v <= 250,
    (v) =>
      `${v.toFixed(0)} MB (RSS ${soak?.serverRssStartMb} MB at start, ${soak?.serverRssEndMb} MB at end)`,
  );
  return verdicts;
}

/** @param {Verdict[]} verdicts */
export function formatVerdicts(verdicts) {
  return verdicts.map((v) => `${v.status.padEnd(4)}  ${v.target}: ${v.measured}`).join('\n');
}

/**
 * @param {Row[]} rows
 * @param {Probe[]} probes
 * @param {Soak | null} soak
 */
export function invalidFigures(rows, probes, soak) {
  const percent = (/** @type {number} */ share) => `${round(share * 100, 2)} %`;
  return [
    ...rows
      .filter((r) => !r.valid)
      .map(
        (r) =>
          `${r.scenario}: ${percent(r.badShare)} bad answers (status codes ${JSON.stringify(r.statusCodes)}, ${r.errors} errors, ${r.timeouts} timeouts)`,
      ),
    ...probes
      .filter((p) => !p.valid)
      .map((p) => `${p.scenario} (1 connection): ${p.non2xx} non-2xx of ${p.requests}`),
    ...(soak && !soak.valid
      ? [`soak: ${soak.non2xx} non-2xx, ${soak.errors} errors, ${soak.timeouts} timeouts`]
      : []),
  ].map((line) => `${line} (limit ${percent(MAX_BAD_SHARE)})`);
}

/**
 * @param {string} dir
 * @param {string} db
 * @param {object} results
 */
export async function writeResults(dir, db, results) {
  await mkdir(dir, { recursive: true });
  const stamp = new Date().toISOString().slice(0, 16).replace(/:/g, '-');
  const file = join(dir, `${stamp}-${db}.json`);
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  return file;
}

/**
 * The targets of the newest earlier run on the same database beside this run's: a target that
 * passed then and misses now is flagged REGRESSED. Earlier runs are the results files in `dir`
 * (kept on this machine, not committed); on a machine without any, the committed reference of
 * that database (`reference/<db>.json`, written by `--save-reference`) stands in for them.
 * @param {string} dir
 * @param {string} db
 * @param {Verdict[]} verdicts
 * @returns {Promise<string[]>}
 */
export async function compareWithPrevious(dir, db, verdicts) {
  const names = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith(`-${db}.json`));
  const newest = names.sort().at(-1);
  const file = newest ? join(dir, newest) : referenceFile(dir, db);
  const text = await readFile(file, 'utf8').catch(() => null);
  if (text === null) return [`no earlier ${db} run in ${dir} and no reference to compare with`];
  const parsed = /** @type {unknown} */ (JSON.parse(text));
  const previous =
    /** @type {{ date?: string, settings?: { quick?: boolean }, targets?: Verdict[] }} */ (parsed);
  const before = new Map((previous.targets ?? []).map((v) => [v.target, v]));
  const what = newest ?? `the committed reference of ${previous.date ?? 'an earlier run'}`;
  const lines = [
    `against the previous ${db} run (${what}${previous.settings?.quick ? ', --quick' : ''}):`,
  ];
  for (const now of verdicts) {
    const then = before.get(now.target);
    if (!then || (then.status === 'N/A' && now.status === 'N/A')) continue;
    const flag = then.status === 'PASS' && now.status === 'GAP' ? 'REGRESSED ' : '';
    lines.push(
      `${flag}${now.target}: ${then.status} ${then.measured} -> ${now.status} ${now.measured}`,
    );
  }
  return lines;
}

/** @param {string} dir @param {string} db */
export function referenceFile(dir, db) {
  return join(dir, 'reference', `${db}.json`);
}
