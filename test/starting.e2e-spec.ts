import { ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, connect, type Server as NetServer } from 'node:net';
import { delimiter, dirname, join } from 'node:path';
import { createConnection } from 'mysql2/promise';
import { MIGRATIONS } from '../src/database/typeorm-options';
import { exitOf, freePort } from './utils/cli';
import { PrivateMariaDb } from './utils/private-mariadb';
import { tempDir, testRedisUrl } from './utils/test-services';
import { sleep } from './utils/wait';

const ROOT = join(__dirname, '..');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

/** The environment without what the outer `npm run` or a developer's shell set for this run. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || /^(DATABASE_URL|REDIS_URL|LOG_LEVEL|PORT|HOST)$/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

interface Server {
  child: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  stderr: () => string;
}

function startMain(env: Record<string, string>): Server {
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'main.js')], {
    cwd: ROOT,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, lines, stderr: () => stderr };
}

/** The ready line, parsed, once the server printed it (or fails saying what it printed). */
async function readyLine(server: Server, timeoutMs = 60_000): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = server.lines.find((candidate) => candidate.includes('"context":"Server"'));
    if (line) return JSON.parse(line) as Record<string, string>;
    if (server.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(
        `no ready line; stdout:\n${server.lines.join('\n')}\nstderr:\n${server.stderr()}`,
      );
    }
    await sleep(50);
  }
}

async function stop(server: Server): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** PATH without any folder that holds a `tsc` (node_modules/.bin of this checkout, say). */
const pathWithoutTsc = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !existsSync(join(dir, 'tsc')))
  .join(delimiter);

/** Resolves once the child exited and its output was read to the end. */
function closed(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('close', (code) => resolve(code)));
}

/** Whether a process of this id still exists (a zombie included, until its parent reaps it). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Whether anything accepts a connection on 127.0.0.1:`port`. */
function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Every line of `text` parsed as JSON (fails naming the first that is not). */
function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON line: ${line}\nin:\n${text}`);
      }
    });
}

describe('starting the server', () => {
  describe('npm start and npm run build in a copy of the project', () => {
    let project: string;
    /** `npm ARGS` in the copy, as an operator would run it there. */
    const npm = (...args: string[]) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          'npm',
          [...args, '--silent'],
          { cwd: project, env: cleanEnv({ PATH: pathWithoutTsc }), timeout: 240_000 },
          (error, stdout, stderr) => {
            const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
            resolve({ code, stdout, stderr });
          },
        );
      });

    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(project, path)), { recursive: true });
      writeFileSync(join(project, path), text);
    };

    /** What a clone holds after `npm ci`: the sources, and this checkout's node_modules. */
    const asClone = () => {
      cpSync(join(ROOT, 'src'), join(project, 'src'), { recursive: true });
      for (const file of ['tsconfig.json', 'tsconfig.build.json']) {
        copyFileSync(join(ROOT, file), join(project, file));
      }
      symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(project, 'node_modules'), 'dir');
    };

    beforeEach(() => {
      // package.json and its scripts, and a build in dist/ that says it ran.
      project = tempDir('ratings-npm-start-');
      copyFileSync(join(ROOT, 'package.json'), join(project, 'package.json'));
      cpSync(join(ROOT, 'scripts'), join(project, 'scripts'), { recursive: true });
      write('dist/main.js', "console.log('the build in dist/ started');\n");
    });

    afterEach(() => rmSync(project, { recursive: true, force: true }));

    it('after npm prune --omit=dev (typescript kept as a peer, the @types gone), starts dist/ as it is', async () => {
      // A compiler that would wreck dist/ if it ran, where `npm prune --omit=dev` leaves the real
      // one (a peer of typeorm and cosmiconfig).
      write('node_modules/typescript/package.json', '{"name":"typescript","version":"5.9.3"}\n');
      write('node_modules/.bin/tsc', '#!/bin/sh\nrm -rf dist\nexit 1\n');
      chmodSync(join(project, 'node_modules', '.bin', 'tsc'), 0o755);
      const result = await npm('start');
      expect(result).toEqual(
        expect.objectContaining({ code: 0, stdout: 'the build in dist/ started\n' }),
      );
      expect(result.stderr).toMatch(/No build toolchain \(@types\/.* not installed/);
      expect(readFileSync(join(project, 'dist', 'main.js'), 'utf8')).toMatch(/started/);
    });

    it('with neither a toolchain nor a build, exits non-zero saying how to make one', async () => {
      rmSync(join(project, 'dist'), { recursive: true });
      const result = await npm('start');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/No build in dist\/ and no toolchain/);
      expect(result.stderr).toMatch(/npm run build/);
    });

    it('in a clone after npm ci, builds the sources afresh and serves them (README: npm ci && npm start)', async () => {
      asClone();
      const port = await freePort();
      const child = spawn('npm', ['start', '--silent'], {
        cwd: project,
        env: cleanEnv({ PATH: pathWithoutTsc, PORT: String(port), HOST: '127.0.0.1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let stderr = '';
      let partial = '';
      const server: Server = { child, lines: [], stderr: () => stderr };
      child.stdout?.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString()).split('\n');
        partial = parts.pop() ?? '';
        server.lines.push(...parts);
      });
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      try {
        const line = await readyLine(server, 240_000);
        // No DATABASE_URL: the default file, in the package's folder.
        expect(line.database).toBe(`SQLite ${join(project, 'data', 'ratings.sqlite')}`);
        expect(server.lines.join('\n')).not.toContain('the build in dist/ started');
        expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
      } finally {
        // npm and the server it started: the process group.
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
        if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
      }
    }, 300_000);

    it('a build that fails leaves the previous dist/ as it was', async () => {
      asClone();
      write('src/main.ts', "const port: number = 'not a number';\nexport default port;\n");
      const result = await npm('run', 'build');
      expect(result.code).not.toBe(0);
      expect(result.stderr).toMatch(/The build failed: dist\/ is left as it was/);
      expect(readFileSync(join(project, 'dist', 'main.js'), 'utf8')).toMatch(/started/);
      expect(existsSync(join(project, 'dist.next'))).toBe(false);
    }, 300_000);
  });

  describe('npm start in a clone, started again', () => {
    let project: string;
    const groups: number[] = [];

    beforeAll(() => {
      project = tempDir('ratings-npm-restart-');
      for (const file of [
        'package.json',
        'package-lock.json',
        'tsconfig.json',
        'tsconfig.build.json',
      ]) {
        copyFileSync(join(ROOT, file), join(project, file));
      }
      for (const folder of ['src', 'scripts']) {
        cpSync(join(ROOT, folder), join(project, folder), { recursive: true });
      }
      symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(project, 'node_modules'), 'dir');
    });

    afterAll(() => {
      // Whatever a failed test left: npm, and a server that outlived it (same process group).
      for (const group of groups) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // gone already
        }
      }
      rmSync(project, { recursive: true, force: true });
    });

    /** `npm start` in the copy, in a process group of its own; resolves once the server is ready. */
    const npmStart = async () => {
      const port = await freePort();
      const child = spawn('npm', ['start', '--silent'], {
        cwd: project,
        env: cleanEnv({ PATH: pathWithoutTsc, PORT: String(port), HOST: '127.0.0.1' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      if (child.pid) groups.push(child.pid);
      let stderr = '';
      let partial = '';
      const server: Server = { child, lines: [], stderr: () => stderr };
      child.stdout?.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString()).split('\n');
        partial = parts.pop() ?? '';
        server.lines.push(...parts);
      });
      child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const line = await readyLine(server, 240_000);
      return { npm: child, stderr: () => stderr, port, pid: Number(line.pid) };
    };

    /** Signals npm alone, as a supervisor or `kill PID` does; then nothing may be left of it. */
    const expectStoppedBy = async (
      started: Awaited<ReturnType<typeof npmStart>>,
      signal: NodeJS.Signals,
    ) => {
      expect(alive(started.pid)).toBe(true);
      expect(await accepting(started.port)).toBe(true);
      started.npm.kill(signal);
      await exitOf(started.npm);
      // npm is gone: the server it started is too, and its port is free.
      expect(alive(started.pid)).toBe(false);
      expect(await accepting(started.port)).toBe(false);
    };

    const stamp = () => join(project, 'dist', 'build-stamp.json');

    it('the first npm start builds; SIGTERM to npm stops the server', async () => {
      const started = await npmStart();
      expect(started.stderr()).toContain(
        'Building dist/ (npm run build): dist/ holds no stamped build.',
      );
      expect(existsSync(stamp())).toBe(true);
      await expectStoppedBy(started, 'SIGTERM');
    }, 300_000);

    it('a second npm start does not build (dist/ as it was); SIGINT to npm stops the server', async () => {
      // A build replaces dist/ as a whole: a file of ours in it survives only if none ran.
      writeFileSync(join(project, 'dist', 'left-by-the-test'), '');
      const before = readFileSync(stamp(), 'utf8');
      const started = await npmStart();
      expect(started.stderr()).not.toContain('Building');
      expect(existsSync(join(project, 'dist', 'left-by-the-test'))).toBe(true);
      expect(readFileSync(stamp(), 'utf8')).toBe(before);
      await expectStoppedBy(started, 'SIGINT');
    }, 120_000);

    it('after a source changed, npm start builds again', async () => {
      const main = join(project, 'src', 'main.ts');
      writeFileSync(main, `${readFileSync(main, 'utf8')}// changed\n`);
      const before = readFileSync(stamp(), 'utf8');
      const started = await npmStart();
      expect(started.stderr()).toContain(
        'Building dist/ (npm run build): the sources changed since the last build.',
      );
      expect(existsSync(join(project, 'dist', 'left-by-the-test'))).toBe(false);
      expect(readFileSync(stamp(), 'utf8')).not.toBe(before);
      await expectStoppedBy(started, 'SIGTERM');
    }, 300_000);
  });

  describe('a start that fails: JSON lines only, and exit code 1', () => {
    it('retries an unreachable database with one line per attempt, then says why it stops', async () => {
      const closedPort = await freePort();
      const server = startMain({
        DATABASE_URL: `mysql://root@127.0.0.1:${closedPort}/ratings`,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      });
      expect(await closed(server.child)).toBe(1);
      expect(server.stderr()).toBe('');
      const lines = jsonLines(server.lines.join('\n'));
      for (const line of lines) {
        expect(line).toEqual(
          expect.objectContaining({ level: expect.any(Number), msg: expect.any(String) }),
        );
      }
      const database = `MySQL/MariaDB mysql://root@127.0.0.1:${closedPort}/ratings`;
      const reason = `connect ECONNREFUSED 127.0.0.1:${closedPort}`;
      expect(lines.slice(0, -1)).toEqual(
        [1, 2, 3, 4].map((attempt) =>
          expect.objectContaining({
            level: 40,
            context: 'Database',
            msg: `Could not open the database (${database}): ${reason}; retrying in 1 s (attempt ${attempt} of 5)`,
          }),
        ),
      );
      expect(lines[lines.length - 1]).toEqual(
        expect.objectContaining({
          level: 50,
          msg: `Could not open the database (${database}) in 5 attempts: ${reason}`,
        }),
      );
    }, 60_000);

    it('retries an unreachable Galera cluster (several hosts) with one line per attempt naming each node, never a stack', async () => {
      const [first, second] = [await freePort(), await freePort()];
      const server = startMain({
        DATABASE_URL: `mysql://app:secret@127.0.0.1:${first},127.0.0.1:${second}/ratings`,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      });
      expect(await closed(server.child)).toBe(1);
      expect(server.stderr()).toBe('');
      const output = server.lines.join('\n');
      expect(output).not.toContain('secret');
      expect(output).not.toMatch(/\n\s+at /);
      const lines = jsonLines(output);
      const database = `MariaDB Galera 127.0.0.1:${first},127.0.0.1:${second}/ratings`;
      const reason = `No Galera node is ready (127.0.0.1:${first}: ECONNREFUSED; 127.0.0.1:${second}: ECONNREFUSED)`;
      expect(lines).toEqual([
        ...[1, 2, 3, 4].map((attempt) =>
          expect.objectContaining({
            level: 40,
            msg: `Could not open the database (${database}): ${reason}; retrying in 1 s (attempt ${attempt} of 5)`,
          }),
        ),
        expect.objectContaining({
          level: 50,
          msg: `Could not open the database (${database}) in 5 attempts: ${reason}`,
        }),
      ]);
      expect(lines.slice(0, -1).every((line) => line.context === 'Database')).toBe(true);
    }, 60_000);

    it.each([
      [
        'DATABASE_URL',
        'mysql://app:secret@db1:3306,db2:port/ratings',
        'DATABASE_URL names "db2:port", which is not a host:port',
      ],
      [
        'DATABASE_URL',
        'mysql://app:secret@db1:3306,db2:3306',
        'DATABASE_URL with several hosts must be',
      ],
      ['REDIS_URL', 'redis+sentinel://s1:26379,s2:26379', 'REDIS_URL must be redis+sentinel://'],
      [
        'REDIS_URL',
        'redis+sentinel://s1:26379,:26379/main',
        'REDIS_URL names ":26379", which is not a host:port',
      ],
    ])('a malformed %s (%s): exit 1 with one message naming it', async (_name, url, message) => {
      const server = startMain({
        DATABASE_URL: 'sqlite::memory:',
        [_name]: url,
        HOST: '127.0.0.1',
        PORT: String(await freePort()),
      });
      expect(await closed(server.child)).toBe(1);
      const problems = server
        .stderr()
        .split('\n')
        .filter((line) => line.startsWith('  - '));
      expect(problems).toEqual([expect.stringContaining(message)]);
      expect(server.stderr()).not.toMatch(/\n\s+at /);
    });

    it('on a port already taken: one line naming the port', async () => {
      const taken: NetServer = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as { port: number };
      try {
        const server = startMain({
          DATABASE_URL: process.env.E2E_DATABASE_URL!,
          HOST: '127.0.0.1',
          PORT: String(port),
        });
        expect(await closed(server.child)).toBe(1);
        expect(server.stderr()).toBe('');
        expect(jsonLines(server.lines.join('\n'))).toEqual([
          expect.objectContaining({
            level: 60,
            context: 'Server',
            msg: `Cannot listen on port ${port} on 127.0.0.1: the port is already in use (EADDRINUSE). Stop the process that listens there or set PORT to a free port.`,
          }),
        ]);
      } finally {
        await new Promise((resolve) => taken.close(resolve));
      }
    });
  });

  describe('the ready line of node dist/main.js', () => {
    let server: Server | undefined;

    afterEach(async () => {
      if (server) await stop(server);
      server = undefined;
    });

    it('is the one line printed at start-up: URL, database kind and location, Redis, version', async () => {
      const port = await freePort();
      server = startMain({
        DATABASE_URL: process.env.E2E_DATABASE_URL!,
        HOST: '127.0.0.1',
        PORT: String(port),
      });
      const line = await readyLine(server);
      const url = `http://127.0.0.1:${port}`;
      const database = process.env.E2E_DATABASE_URL!.startsWith('sqlite:')
        ? `SQLite ${process.env.E2E_DATABASE_URL!.slice('sqlite:'.length)}`
        : `MySQL/MariaDB ${process.env.E2E_DATABASE_URL}`;
      expect(line).toEqual(
        expect.objectContaining({
          level: 30,
          url,
          database,
          redis: 'off',
          version: VERSION,
          msg: `Ready on ${url} (listening on 127.0.0.1:${port}); database: ${database}; Redis: off; version ${VERSION}`,
        }),
      );
      // Nothing before it at the default level: Nest's module and route lines are debug.
      expect(server.lines[0]).toContain('"context":"Server"');
      expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    });

    it('is printed at any LOG_LEVEL, and names the Redis in use', async () => {
      const port = await freePort();
      server = startMain({
        DATABASE_URL: process.env.E2E_DATABASE_URL!,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'error',
        REDIS_URL: testRedisUrl(),
      });
      const line = await readyLine(server);
      expect(line.redis).toBe(`on ${testRedisUrl()}`);
      expect(line.msg).toContain(`Redis: on ${testRedisUrl()};`);
    });
  });

  /**
   * contract §16: migrations under GET_LOCK. MariaDB-only by nature, so on a MariaDB server of the
   * test's own (as the database-fault spec does), whichever database the rest of the suite uses.
   */
  describe('two instances starting at once on a fresh MariaDB database', () => {
    const PASSWORD = 'ready-line-must-not-show-this';
    let db: PrivateMariaDb;
    const servers: Server[] = [];

    beforeAll(async () => {
      db = await PrivateMariaDb.start();
      const root = await createConnection({ host: '127.0.0.1', port: db.port, user: 'root' });
      await root.query(`CREATE USER 'ratings'@'127.0.0.1' IDENTIFIED BY '${PASSWORD}'`);
      await root.query(`GRANT ALL ON ratings.* TO 'ratings'@'127.0.0.1'`);
      await root.end();
    }, 120_000);

    afterAll(async () => {
      await Promise.all(servers.map(stop));
      await db?.destroy();
    });

    it('wait for the migration lock, then apply each migration once; neither shows the password', async () => {
      const url = `mysql://ratings:${PASSWORD}@127.0.0.1:${db.port}/ratings`;
      const root = await createConnection({
        host: '127.0.0.1',
        port: db.port,
        user: 'root',
        database: 'ratings',
      });
      try {
        // Holding the lock as a migrating instance would, so that both arrive while it is taken.
        const lockName = "LEFT(CONCAT('ratings-migrations:', DATABASE()), 64)";
        await root.query(`SELECT GET_LOCK(${lockName}, 0)`);
        const ports = [await freePort(), await freePort()];
        for (const port of ports) {
          servers.push(
            startMain({
              DATABASE_URL: url,
              HOST: '127.0.0.1',
              PORT: String(port),
              LOG_LEVEL: 'warn',
            }),
          );
        }
        const waiting = async () => {
          const [rows] = await root.query(
            "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE 'SELECT GET_LOCK(%'",
          );
          return Number((rows as { n: number }[])[0].n);
        };
        for (let i = 0; i < 600 && (await waiting()) < 2; i++) {
          await sleep(100);
        }
        expect(await waiting()).toBe(2);
        expect(servers.map((server) => server.lines.length)).toEqual([0, 0]);
        const [tables] = await root.query("SHOW TABLES LIKE 'migrations'");
        expect(tables).toEqual([]);

        await root.query(`SELECT RELEASE_LOCK(${lockName})`);
        const lines = await Promise.all(servers.map((server) => readyLine(server, 120_000)));
        for (const [i, line] of lines.entries()) {
          expect(line.database).toBe(
            `MySQL/MariaDB mysql://ratings:***@127.0.0.1:${db.port}/ratings`,
          );
          expect(line.url).toBe(`http://127.0.0.1:${ports[i]}`);
          expect(servers[i].lines.join('\n') + servers[i].stderr()).not.toContain(PASSWORD);
          expect((await fetch(`${line.url}/health/ready`)).status).toBe(200);
        }

        const [rows] = await root.query(
          'SELECT name, COUNT(*) AS times FROM migrations GROUP BY name ORDER BY name',
        );
        const applied = rows as { name: string; times: number }[];
        expect(applied.map((row) => Number(row.times))).toEqual(MIGRATIONS.map(() => 1));
        expect(applied.map((row) => row.name).sort()).toEqual(
          MIGRATIONS.map((migration) => migration.name).sort(),
        );
      } finally {
        await root.end();
      }
    }, 180_000);
  });
});
