import { execFile } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerTurnDestination } from './per-turn-destination';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function contentOnceItHas(path: string, lines: number): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const content = readFileSync(path, 'utf8');
    if (content.split('\n').length > lines) return content;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return readFileSync(path, 'utf8');
}

describe('PerTurnDestination', () => {
  describe('on a file', () => {
    let path: string;
    let fd: number;
    let destination: PerTurnDestination;

    beforeEach(() => {
      path = join(mkdtempSync(join(tmpdir(), 'per-turn-')), 'out.log');
      fd = openSync(path, 'w');
      destination = new PerTurnDestination(fd);
    });

    afterEach(() => closeSync(fd));

    it('writes the lines of every turn, in the order they came', async () => {
      destination.write('one\n');
      destination.write('two\n');
      await nextTurn();
      destination.write('three\n');
      await nextTurn();
      for (let i = 4; i <= 100; i++) destination.write(`${i}\n`);

      const expected = ['one', 'two', 'three', ...Array.from({ length: 97 }, (_, i) => `${i + 4}`)];
      expect(await contentOnceItHas(path, 100)).toBe(`${expected.join('\n')}\n`);
    });

    it('writes everything written so far when flushed (pino.flush at shutdown)', () => {
      destination.write('before the signal\n');
      destination.write('and the last\n');
      destination.flush();
      expect(readFileSync(path, 'utf8')).toBe('before the signal\nand the last\n');
    });
  });

  it('writes the lines of the last turn when the process exits before it ends', async () => {
    const script = [
      "const { PerTurnDestination } = require('./src/logging/per-turn-destination');",
      'const destination = new PerTurnDestination(1);',
      "destination.write('first\\n');",
      "destination.write('last\\n');",
      'process.exit(3);',
    ].join('\n');
    const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>(
      (resolve) => {
        execFile(
          process.execPath,
          ['-r', 'ts-node/register/transpile-only', '-e', script],
          { cwd: join(__dirname, '..', '..') },
          (error, out) => resolve({ code: error ? (error.code as number) : 0, stdout: out }),
        );
      },
    );
    expect(code).toBe(3);
    expect(stdout).toBe('first\nlast\n');
  });
});
