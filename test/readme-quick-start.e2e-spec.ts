import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, join } from 'node:path';
import { freePort } from './utils/cli';
import { tempDir } from './utils/test-services';

const ROOT = join(__dirname, '..');

/** The first ```bash block under the README's "### Quick start", as a reader copies it. */
function quickStartBlock(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n### Quick start\n'));
  const block = /```bash\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('README.md has no bash block under "### Quick start"');
  return block[1];
}

/** The environment of a reader's shell: nothing this run set for itself. */
function readerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(key) || /^(DATABASE_URL|REDIS_URL|LOG_LEVEL|PORT|HOST)$/.test(key)) continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

describe('README Quick start, pasted as one block into bash', () => {
  let project: string;
  let shell: ChildProcess | undefined;

  beforeAll(() => {
    // A clone: what git holds, no dist/, no data/.
    project = tempDir('ratings-quick-start-');
    for (const file of [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
    ]) {
      copyFileSync(join(ROOT, file), join(project, file));
    }
    for (const folder of ['src', 'scripts', 'examples']) {
      cpSync(join(ROOT, folder), join(project, folder), { recursive: true });
    }
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(project, 'node_modules'), 'dir');
  });

  afterAll(() => {
    // The server the block left running in the background, with npm: the shell's process group.
    if (shell?.pid) {
      try {
        process.kill(-shell.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
    rmSync(project, { recursive: true, force: true });
  });

  it('runs every command successfully and rates the first entry', async () => {
    const port = await freePort();
    const script = quickStartBlock().replaceAll('localhost:3000', `localhost:${port}`);
    expect(script).toContain('npm ci && npm run build');

    // The one command not run for real: `npm ci` would replace node_modules, which here is this
    // checkout's (a symlink). Every other npm command goes to npm.
    const realNpm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
    const bin = join(project, '.reader-bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'npm'),
      `#!/bin/sh\nif [ "$1" = ci ]; then exit 0; fi\nexec ${realNpm} "$@"\n`,
    );
    chmodSync(join(bin, 'npm'), 0o755);

    // -e: the first command that fails stops the block, named on stderr by the trap.
    const prologue = 'set -e\ntrap \'echo "FAILED: $BASH_COMMAND" >&2\' ERR\n';
    const child = spawn('bash', ['-c', prologue + script], {
      cwd: project,
      env: readerEnv({ PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`, PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    shell = child;
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // The block's last curl answered; the server it started keeps stdout open, so not 'close'.
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    const output = `stdout:\n${stdout}\nstderr:\n${stderr}`;
    expect({ code, failed: /FAILED: .*/.exec(stderr)?.[0] ?? null, output }).toEqual({
      code: 0,
      failed: null,
      output,
    });
    expect(stdout).toContain('{"status":"ok"}');
    expect(stdout).toContain('{"success":true}');
    expect(stdout).toMatch(/"statistics":\{"anime":\{.*"completed":1/);
  }, 300_000);
});
