import { execFile } from 'node:child_process';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DataSource } from 'typeorm';
import { IpDenialRecords } from '../src/auth/ip-denial-records';
import { TokensService } from '../src/auth/tokens.service';
import { ClientsService } from '../src/oauth/clients.service';
import { User } from '../src/users/user.entity';
import { UsersService } from '../src/users/users.service';
import { WebhooksService } from '../src/webhooks/webhooks.service';
import { anime, importTitles, putEntry } from './factories';
import type { CliResult } from './utils/cli';
import { useTestApp } from './utils/test-app';

// Every CLI run starts a process of its own: slow on a busy machine.
jest.setTimeout(180_000);

const ROOT = join(__dirname, '..');

/**
 * `node dist/cli.js args | reader` in bash: the CLI's exit status (not the reader's) and what it
 * wrote to standard error. `head -n 0` exits without reading, so the pipe is closed before the
 * CLI's first write; `head -1` closes it after the first line.
 */
function cliInto(reader: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `node dist/cli.js "$@" | ${reader}; exit "\${PIPESTATUS[0]}"`, 'cli', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL! },
        timeout: 120_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Issue 30 item 7: listings piped into `head` exit quietly, without an EPIPE stack. */
describe('CLI output into a pipe the reader closes early', () => {
  let app: NestFastifyApplication;

  useTestApp((created) => (app = created), { WEBHOOK_ALLOW_PRIVATE: 'true' });

  beforeEach(async () => {
    const users = app.get(UsersService);
    for (const name of ['alice', 'bob', 'carol']) await users.create(name);
    const tokens = app.get(TokensService);
    const { token } = await tokens.issue('alice', 'ratings.anime');
    await tokens.issue('alice', 'user.profile');
    await app.get(ClientsService).create({
      name: 'ListSync',
      redirectUris: ['https://listsync.example/callback'],
      isPublic: true,
    });
    await app.get(WebhooksService).create('http://127.0.0.1:9/hook');
    await app.get(WebhooksService).create('http://127.0.0.1:9/other');
    const now = Date.now();
    await app.get(IpDenialRecords).record('192.0.2.1', now, now + 900_000);
    await app.get(IpDenialRecords).record('192.0.2.2', now, now + 900_000);
    await importTitles(app, [anime(1), anime(2)]);
    await putEntry(app, token, 'anime', 1, { status: 'completed' });
    await putEntry(app, token, 'anime', 2);
  });

  it.each([
    [['users', 'list']],
    [['users', 'export', '--name', 'alice']],
    [['clients', 'list']],
    [['tokens', 'list', '--user', 'alice']],
    [['webhooks', 'list']],
    [['denials', 'list']],
    [['lists', 'export', '--user', 'alice', '--media-type', 'anime']],
    [['users', '--help']],
  ])('%j | head -n 0: status 0, nothing on standard error', async (args) => {
    expect(await cliInto('head -n 0', args)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('users list | head -1: the first user, status 0, nothing on standard error', async () => {
    // Far more than a pipe holds, so that the CLI is still writing when head exits.
    const names = Array.from({ length: 3000 }, (_, i) => ({
      name: `reader${i}`,
      createdAt: new Date(),
    }));
    for (let i = 0; i < names.length; i += 500) {
      await app
        .get(DataSource)
        .getRepository(User)
        .insert(names.slice(i, i + 500));
    }
    const result = await cliInto('head -1', ['users', 'list']);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(result.stdout)).toMatchObject({ name: 'alice' });
  });
});
