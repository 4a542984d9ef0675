// Child processes of the bench: spawned, watched and always killed, whatever way the run ends.
import { spawn, execFile } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpGet } from 'node:http';
import { createServer } from 'node:net';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { setTimeout as sleep } from 'node:timers/promises';

/** @type {Set<import('node:child_process').ChildProcess>} */
const live = new Set();

/**
 * A free TCP port on 127.0.0.1 (the OS picks it; the tiny race until the child binds is accepted).
 * @returns {Promise<number>}
 */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a long-running child (server) with its output in a log file.
 * @param {string} name
 * @param {string[]} args node arguments
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, logFile: string, ipc?: boolean }} options
 */
export function startChild(name, args, { env, cwd, logFile, ipc = false }) {
  // The child writes to the file itself, as a server writing to a file or a journal would: piped
  // through this process, every access-log line would cost the load generator CPU as well.
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, args, {
    env,
    cwd,
    stdio: ipc ? ['ignore', log, log, 'ipc'] : ['ignore', log, log],
  });
  closeSync(log);
  live.add(child);
  let exited = false;
  child.on('exit', (code, signal) => {
    exited = true;
    live.delete(child);
    if (!stopping.has(child)) {
      process.stderr.write(
        `\n!! ${name} (pid ${child.pid}) exited unexpectedly (code ${code}, signal ${signal}); log: ${logFile}\n`,
      );
    }
  });
  return {
    name,
    child,
    pid: /** @type {number} */ (child.pid),
    logFile,
    isAlive: () => !exited,
    stop: () => stopChild(child),
  };
}

/** @type {WeakSet<import('node:child_process').ChildProcess>} */
const stopping = new WeakSet();

/**
 * SIGTERM, then SIGKILL after 5 s.
 * @param {import('node:child_process').ChildProcess} child
 * @param {NodeJS.Signals} signal
 */
export async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return;
  stopping.add(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const killed = await Promise.race([exited.then(() => true), sleep(5000).then(() => false)]);
  if (!killed) {
    child.kill('SIGKILL');
    await Promise.race([exited, sleep(2000)]);
  }
}

/** Synchronous last resort for process exit: every child still alive gets SIGKILL. */
export function killAllChildrenNow() {
  for (const child of live) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Stops every child still alive (normal end of run). */
export async function stopAllChildren() {
  await Promise.all([...live].map((child) => stopChild(child)));
}

/**
 * Runs `node args…` to completion and returns its stdout; rejects on a non-zero exit or after
 * `timeoutMs`.
 * @param {string[]} args
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, timeoutMs?: number }} options
 * @returns {Promise<string>}
 */
export function runNode(args, { env, cwd, timeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { env, cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
        } else {
          resolve(stdout);
        }
      },
    );
  });
}

/**
 * Polls `url` until it answers 200, the child dies, or `timeoutMs` passes.
 * @param {string} url
 * @param {{ isAlive: () => boolean, logFile: string, name: string }} child
 */
export async function waitForHttp(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!child.isAlive())
      throw new Error(`${child.name} exited during start-up; see ${child.logFile}`);
    if ((await statusOf(url)) === 200) return;
    await sleep(200);
  }
  throw new Error(`${child.name} did not answer ${url} within ${timeoutMs / 1000} s`);
}

/**
 * @param {string} url
 * @returns {Promise<number>} the status, or 0 when nothing answers within 2 s
 */
function statusOf(url) {
  return new Promise((resolve) => {
    const req = httpGet(url, { timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/**
 * Reads one process's memory (/proc/<pid>/status) and CPU time (/proc/<pid>/stat) once a second.
 * Windows can be opened and closed to get the peak RSS and the CPU seconds spent inside them.
 */
export class ProcSampler {
  /** @param {number} pid */
  constructor(pid) {
    this.pid = pid;
    this.peakRssBytes = 0;
    this.lastRssBytes = 0;
    this.hwmBytes = 0;
    /** @type {{ peakRssBytes: number }[]} */
    this.windows = [];
    this.timer = setInterval(() => void this.sample(), 1000);
    this.timer.unref();
  }

  async sample() {
    const memory = await readMemory(this.pid);
    if (!memory) return;
    this.lastRssBytes = memory.rssBytes;
    this.peakRssBytes = Math.max(this.peakRssBytes, memory.rssBytes);
    this.hwmBytes = Math.max(this.hwmBytes, memory.hwmBytes);
    for (const window of this.windows) {
      window.peakRssBytes = Math.max(window.peakRssBytes, memory.rssBytes);
    }
  }

  /** Starts a measurement window; `end()` returns its peak RSS and the CPU seconds used. */
  async window() {
    const cpuStart = await readCpuSeconds(this.pid);
    const window = { peakRssBytes: 0 };
    this.windows.push(window);
    await this.sample();
    return {
      end: async () => {
        await this.sample();
        this.windows = this.windows.filter((w) => w !== window);
        const cpuEnd = await readCpuSeconds(this.pid);
        return { peakRssBytes: window.peakRssBytes, cpuSeconds: cpuEnd - cpuStart };
      },
    };
  }

  /**
   * Waits until the process is idle (under `busyShare` of one core for two half-second samples
   * in a row), so that a backlog left by one load phase is not billed to the next. Gives up after
   * `maxMs` and returns the wait in ms, or -1 when it gave up.
   */
  async waitIdle(maxMs = 120_000, busyShare = 0.15) {
    const started = Date.now();
    let quiet = 0;
    while (Date.now() - started < maxMs) {
      const before = await readCpuSeconds(this.pid);
      await sleep(500);
      const share = ((await readCpuSeconds(this.pid)) - before) / 0.5;
      quiet = share < busyShare ? quiet + 1 : 0;
      if (quiet >= 2) return Date.now() - started;
    }
    return -1;
  }

  stop() {
    clearInterval(this.timer);
  }
}

/** @param {number} pid */
async function readMemory(pid) {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (/** @type {string} */ field) =>
      Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    return { rssBytes: kb('VmRSS') * 1024, hwmBytes: kb('VmHWM') * 1024 };
  } catch {
    return null;
  }
}

/** @param {number} pid */
async function readCpuSeconds(pid) {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name "(…)", which may itself contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}
