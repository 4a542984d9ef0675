import { execFile, spawn, ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built admin CLI (`node dist/cli.js`) on the run's database; `input` is written to its
 * standard input (which is closed either way).
 */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  timeoutMs = 120_000,
): Promise<CliResult> {
  return runNode(join(ROOT, 'dist', 'cli.js'), args, {
    env: { DATABASE_URL: process.env.E2E_DATABASE_URL!, ...env },
    input,
    timeoutMs,
  });
}

/**
 * Runs `node script args` from `cwd` (the repository by default) with `env` on top of this
 * process's; `input` is written to its standard input (which is closed either way).
 */
export function runNode(
  script: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [script, ...args],
      {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(options.input);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/** Starts `node dist/main.js` and collects its output. */
export function startServer(env: Record<string, string>): {
  child: ChildProcess;
  output: () => string;
} {
  let output = '';
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

export function exitOf(
  child: ChildProcess,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
    } else {
      child.once('exit', (code, signal) => resolve({ code, signal }));
    }
  });
}
