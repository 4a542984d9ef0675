// Load generation: autocannon for throughput under 50 connections, a one-connection loop for the
// latency of a single request, and the soak.
import { execFile } from 'node:child_process';
import process from 'node:process';
import { clearTimeout, setTimeout } from 'node:timers';
import { fileURLToPath, URL } from 'node:url';
import autocannon from 'autocannon';
import { HttpClient } from './http.mjs';

/** Above this share of non-2xx answers, errors and timeouts, a scenario's figures are worthless. */
export const MAX_BAD_SHARE = 0.01;
const MIN_PROBES = 10;

/**
 * @typedef {object} Scenario
 * @property {string} name
 * @property {string} description
 * @property {'api' | 'api-fresh' | 'api-logs' | 'baseline'} target api-fresh, api-logs: a fresh server
 *   with metrics and access logs off, or on
 * @property {() => Promise<void>} [prepare] run once before the scenario (e.g. a webhook)
 * @property {string} [method]
 * @property {string} [path]
 * @property {Record<string, string>} headers
 * @property {string} [body]
 * @property {(client: import('autocannon').Client) => void} [setupClient]
 * @property {number} [connections] overrides the run's connection count
 * @property {number} [expectedStatus] the status every answer must have (default: any 2xx)
 * @property {Scenario} [alongside] requested one at a time on a connection of its own during the
 *   measured phase: its latency while this scenario loads the server
 */

/**
 * @typedef {object} Samplers
 * @property {import('./children.mjs').ProcSampler} server the process under load
 * @property {import('./children.mjs').ProcSampler | null} db the database server, if local
 * @property {{ before?: () => Promise<void>, after?: () => Promise<void> }} [hooks] e.g. CPU profiling
 */

/**
 * Runs one scenario: warm-up, then the measured phase.
 * @param {Scenario} scenario
 * @param {{ baseUrl: string, connections: number, duration: number, warmup: number, samplers: Samplers }} options
 */
export async function measure(
  scenario,
  { baseUrl, connections: runConnections, duration, warmup, samplers },
) {
  const connections = Math.min(scenario.connections ?? runConnections, runConnections);
  /** @type {import('autocannon').Options} */
  const options = {
    // autocannon takes the path from the URL; a `path` option is only read from `requests`.
    url: `${baseUrl}${scenario.path ?? '/'}`,
    connections,
    duration,
    // A slow scenario queues whole seconds of work per connection; a timeout there is a figure
    // worth seeing, not a client artefact.
    timeout: 60,
    method: scenario.method ?? 'GET',
    headers: scenario.headers,
    body: scenario.body,
    setupClient: scenario.setupClient,
  };
  if (warmup > 0) await run({ ...options, duration: warmup });
  // A slow scenario leaves requests queued in the server after the client stops; drain them.
  const settleMs = await samplers.server.waitIdle();

  await samplers.hooks?.before?.();
  const serverWindow = await samplers.server.window();
  const dbWindow = samplers.db ? await samplers.db.window() : null;
  const selfCpuStart = process.cpuUsage();
  const [result, alongside] = await Promise.all([
    run(options),
    scenario.alongside
      ? probeInOwnProcess(scenario.alongside, { baseUrl, seconds: duration, maxRequests: 1e9 })
      : null,
  ]);
  const selfCpu = process.cpuUsage(selfCpuStart);
  const server = await serverWindow.end();
  const db = dbWindow ? await dbWindow.end() : null;
  await samplers.hooks?.after?.();

  const completed = result.latency.totalCount ?? result['2xx'] + result.non2xx;
  const unexpected = scenario.expectedStatus
    ? completed - (result.statusCodeStats[scenario.expectedStatus]?.count ?? 0)
    : result.non2xx;
  const bad = unexpected + result.errors + result.timeouts;
  const attempts = completed + result.errors + result.timeouts;
  return {
    scenario: scenario.name,
    description: scenario.description,
    connections,
    settleMs,
    durationSeconds: result.duration,
    requestsPerSecond: round(result.requests.average, 1),
    requestsTotal: completed,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: round(result.latency.mean, 2),
    },
    non2xx: unexpected,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]),
    ),
    badShare: attempts === 0 ? 1 : bad / attempts,
    valid: attempts > 0 && bad / attempts <= MAX_BAD_SHARE,
    serverCpuMsPerRequest:
      completed === 0 ? null : round((server.cpuSeconds * 1000) / completed, 3),
    serverPeakRssMb: round(server.peakRssBytes / 2 ** 20, 1),
    dbCpuMsPerRequest: db && completed > 0 ? round((db.cpuSeconds * 1000) / completed, 3) : null,
    loadGeneratorCpuMsPerRequest:
      completed === 0 ? null : round((selfCpu.user + selfCpu.system) / 1000 / completed, 3),
    bytesPerResponse: completed === 0 ? null : Math.round(result.throughput.total / completed),
    alongside,
  };
}

/**
 * @param {import('autocannon').Options} options
 * @returns {Promise<import('autocannon').Result & { latency: { totalCount?: number } }>}
 */
function run(options) {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options);
    // Never longer than the duration plus the request timeout, whatever autocannon does.
    const guard = setTimeout(
      () => {
        instance.stop();
        reject(new Error(`autocannon did not finish ${options.path} in time`));
      },
      ((options.duration ?? 10) + (options.timeout ?? 10) + 30) * 1000,
    );
    instance.then(
      (result) => {
        clearTimeout(guard);
        resolve(result);
      },
      (/** @type {unknown} */ error) => {
        clearTimeout(guard);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/**
 * The latency of one request at a time on one keep-alive connection: what a single client sees
 * when the server is otherwise idle. Runs until `maxRequests` or `seconds`, whichever comes first.
 * @param {Scenario} scenario
 * @param {{ baseUrl: string, seconds: number, maxRequests?: number }} options
 */
export async function probeLatency(scenario, { baseUrl, seconds, maxRequests = 2_000 }) {
  const client = new HttpClient(baseUrl, 1);
  /** @type {number[]} */
  const times = [];
  let bad = 0;
  let deadline = 0;
  try {
    // Two untimed requests open the connection and warm the route.
    for (let i = 0; i < 2; i++) await send(client, scenario);
    deadline = Date.now() + seconds * 1000;
    // At least MIN_PROBES requests, however slow, so that even GET all 10k gets a median.
    while (times.length < maxRequests && (Date.now() < deadline || times.length < MIN_PROBES)) {
      const start = process.hrtime.bigint();
      const status = await send(client, scenario);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      const expected = scenario.expectedStatus;
      if (expected ? status !== expected : status < 200 || status > 299) bad++;
    }
  } finally {
    client.close();
  }
  times.sort((a, b) => a - b);
  const pick = (/** @type {number} */ q) =>
    round(times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? NaN, 2);
  return {
    scenario: scenario.name,
    requests: times.length,
    p50: pick(0.5),
    p99: pick(0.99),
    non2xx: bad,
    valid: times.length > 0 && bad / times.length <= MAX_BAD_SHARE,
  };
}

/**
 * probeLatency in a child process (probe-process.mjs), for a probe made alongside a load.
 * @param {Scenario} scenario with no functions: it crosses to the child as JSON
 * @param {{ baseUrl: string, seconds: number, maxRequests?: number }} options
 * @returns {Promise<Awaited<ReturnType<typeof probeLatency>>>}
 */
function probeInOwnProcess(scenario, options) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [
        fileURLToPath(new URL('./probe-process.mjs', import.meta.url)),
        JSON.stringify({ scenario, options }),
      ],
      { timeout: (options.seconds + 60) * 1000 },
      (error, stdout, stderr) => {
        if (error) return reject(new Error(`the latency probe failed: ${stderr || error.message}`));
        const result = /** @type {unknown} */ (JSON.parse(stdout));
        resolve(/** @type {Awaited<ReturnType<typeof probeLatency>>} */ (result));
      },
    );
  });
}

/**
 * @param {HttpClient} client
 * @param {Scenario} scenario
 */
async function send(client, scenario) {
  const response = await client.request(scenario.method ?? 'GET', scenario.path ?? '/', {
    headers: scenario.headers,
    body: scenario.body,
  });
  return response.status;
}

/**
 * A long run of one scenario, counting completed requests per second of wall time, so that the
 * first and the last 10 s can be compared.
 * @param {Scenario} scenario
 * @param {{ baseUrl: string, connections: number, seconds: number, samplers: Samplers }} options
 */
export async function soak(scenario, { baseUrl, connections, seconds, samplers }) {
  /** @type {number[]} */
  const perSecond = new Array(seconds + 5).fill(0);
  const serverWindow = await samplers.server.window();
  const rssStartMb = round(samplers.server.lastRssBytes / 2 ** 20, 1);
  const started = Date.now();
  const instance = autocannon({
    url: `${baseUrl}${scenario.path ?? '/'}`,
    connections,
    duration: seconds,
    timeout: 30,
    method: scenario.method ?? 'GET',
    headers: scenario.headers,
    body: scenario.body,
  });
  instance.on('response', (_client, statusCode) => {
    const second = Math.floor((Date.now() - started) / 1000);
    if (second < perSecond.length && statusCode >= 200 && statusCode < 300) perSecond[second]++;
  });
  const guard = setTimeout(() => instance.stop(), (seconds + 60) * 1000);
  const result = await instance;
  clearTimeout(guard);
  const server = await serverWindow.end();

  const window = Math.min(10, Math.floor(seconds / 3));
  const full = perSecond.slice(0, Math.floor(result.duration));
  const first = full.slice(0, window);
  const last = full.slice(-window);
  const rate = (/** @type {number[]} */ values) =>
    values.reduce((a, b) => a + b, 0) / values.length;
  const bad = result.non2xx + result.errors + result.timeouts;
  const attempts = (result.latency.totalCount ?? 0) + result.errors + result.timeouts;
  return {
    scenario: scenario.name,
    seconds: result.duration,
    connections,
    windowSeconds: window,
    requestsPerSecond: round(result.requests.average, 1),
    firstWindowRequestsPerSecond: round(rate(first), 1),
    lastWindowRequestsPerSecond: round(rate(last), 1),
    lastOverFirst: round(rate(last) / rate(first), 3),
    perSecond: full,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99 },
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    valid: attempts > 0 && bad / attempts <= MAX_BAD_SHARE,
    serverRssStartMb: rssStartMb,
    serverPeakRssMb: round(server.peakRssBytes / 2 ** 20, 1),
    serverRssEndMb: round(samplers.server.lastRssBytes / 2 ** 20, 1),
    serverCpuMsPerRequest: round(
      (server.cpuSeconds * 1000) / Math.max(1, result.latency.totalCount ?? 1),
      3,
    ),
  };
}

/**
 * @param {number} value
 * @param {number} digits
 */
export function round(value, digits) {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Load whose figures are thrown away (JIT and connection warm-up).
 * @param {Scenario} scenario
 * @param {{ baseUrl: string, connections: number, seconds: number }} options
 */
export async function warm(scenario, { baseUrl, connections, seconds }) {
  await run({
    url: `${baseUrl}${scenario.path ?? '/'}`,
    connections,
    duration: seconds,
    timeout: 30,
    method: scenario.method ?? 'GET',
    headers: scenario.headers,
    body: scenario.body,
    setupClient: scenario.setupClient,
  });
}
