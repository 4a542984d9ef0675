import { ChildProcess, execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { tempDir } from './test-services';

/**
 * A MariaDB server of the test's own (its own data directory, port and socket), so that a test
 * can stop (SIGSTOP) or kill it without disturbing the server the rest of the suite uses.
 * Needs `mariadb-install-db` and `mariadbd` on the PATH (the Debian mariadb-server package).
 */
export class PrivateMariaDb {
  private server: ChildProcess | null = null;

  private constructor(
    private readonly dir: string,
    readonly port: number,
  ) {}

  /** mysql://root@127.0.0.1:PORT/ratings */
  get url(): string {
    return `mysql://root@127.0.0.1:${this.port}/ratings`;
  }

  static async start(): Promise<PrivateMariaDb> {
    const dir = tempDir('ratings-mariadb-');
    const db = new PrivateMariaDb(dir, await freePort());
    await promisify(execFile)('mariadb-install-db', [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      `--user=${process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'mysql')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    await db.launch();
    const connection = await createConnection({ host: '127.0.0.1', port: db.port, user: 'root' });
    await connection.query('CREATE DATABASE ratings');
    await connection.end();
    return db;
  }

  /** Starts the server on its data directory (again, after kill()) and waits until it answers. */
  async launch(): Promise<void> {
    this.server = spawn(
      'mariadbd',
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--port=${this.port}`,
        '--bind-address=127.0.0.1',
        `--socket=${join(this.dir, 'mariadb.sock')}`,
        `--pid-file=${join(this.dir, 'mariadb.pid')}`,
        `--user=${process.getuid?.() === 0 ? 'root' : (process.env.USER ?? 'mysql')}`,
        '--innodb-buffer-pool-size=16M',
        '--skip-log-bin',
      ],
      { stdio: 'ignore' },
    );
    for (let attempt = 0; ; attempt++) {
      try {
        const connection = await createConnection({
          host: '127.0.0.1',
          port: this.port,
          user: 'root',
        });
        await connection.end();
        return;
      } catch (error) {
        if (attempt >= 200) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.server?.kill(signal);
  }

  /** SIGKILL, and waits until the process is gone. */
  async kill(): Promise<void> {
    const server = this.server;
    if (!server || server.exitCode !== null || server.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.kill('SIGCONT');
      server.kill('SIGKILL');
    });
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
