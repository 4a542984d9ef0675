import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { anime, createUserWithToken, importTitles } from './factories';
import { freePort } from './utils/cli';
import { createTestApp, resetDatabase, USER_AGENT } from './utils/test-app';
import { serverIsLive, sleep } from './utils/wait';

const TITLES = 20;
const STATUSES = ['ongoing', 'completed', 'on_hold', 'dropped', 'not_interested', 'bookmark'];

interface Instance {
  child: ChildProcess;
  base: string;
}

async function startInstance(): Promise<Instance> {
  const port = await freePort();
  const child = spawn(process.execPath, [join(__dirname, '..', 'dist', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: process.env.E2E_DATABASE_URL,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      RATE_LIMIT_USER_LIMIT: '1000000',
      RATE_LIMIT_IP_LIMIT: '1000000',
      UA_DENY_THRESHOLD: '0',
    },
    stdio: 'ignore',
  });
  try {
    await serverIsLive(port, 30_000, '/health/ready');
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { child, base: `http://127.0.0.1:${port}` };
}

/** contract §8, from the entries GET all returns. */
function recompute(entries: Record<string, unknown>[]) {
  const count = (status: string) => entries.filter((e) => e.status === status).length;
  const scores = entries
    .map((e) => Number(e.public_rating ?? 0) * 10 + Number(e.public_fraction ?? 0))
    .filter((score) => score > 0);
  const episodes = entries.reduce((sum, e) => sum + Number(e.episodes_watched ?? 0), 0);
  return {
    watching: count('ongoing'),
    completed: count('completed'),
    on_hold: count('on_hold'),
    dropped: count('dropped'),
    bookmark: count('bookmark'),
    average:
      scores.length === 0
        ? 0
        : Math.floor(scores.reduce((sum, s) => sum + s, 0) / scores.length + 0.5),
    episodes,
    rewatched: entries.reduce((sum, e) => sum + Number(e.times_rewatched ?? 0), 0),
    media_minutes: episodes * 24,
  };
}

/**
 * Two server processes on one database; one is killed with SIGKILL in the middle of writes. The
 * other's profile statistics must then equal a recomputation from its own GET all (issue 12).
 */
describe('an instance killed mid-writes', () => {
  let app: NestFastifyApplication;
  let token: string;
  const instances: Instance[] = [];

  beforeAll(async () => {
    app = await createTestApp();
    await resetDatabase(app);
    await importTitles(
      app,
      Array.from({ length: TITLES }, (_, i) => anime(i + 1)),
    );
    ({ token } = await createUserWithToken(app));
    instances.push(await startInstance(), await startInstance());
  }, 90_000);

  afterAll(async () => {
    for (const instance of instances) instance.child.kill('SIGKILL');
    await app.close();
  });

  const headers = () => ({
    'User-Agent': USER_AGENT,
    Authorization: `Bearer ${token}`,
    'Content-Type': 'application/json',
  });

  async function write(base: string, n: number): Promise<number> {
    const id = 1 + (n % TITLES);
    const url = `${base}/v1/my/anime/${id}/ratings`;
    if (n % 5 === 4) return (await fetch(url, { method: 'DELETE', headers: headers() })).status;
    const body = {
      status: STATUSES[n % STATUSES.length],
      public_rating: n % 11,
      episodes_watched: n % 25,
    };
    return (await fetch(url, { method: 'PUT', headers: headers(), body: JSON.stringify(body) }))
      .status;
  }

  it("leaves the other instance's statistics equal to a recomputation", async () => {
    const [victim, survivor] = instances;
    let n = 0;
    let victimOk = 0;
    let stop = false;
    const loop = async (base: string, onOk: () => void) => {
      while (!stop) {
        try {
          if ((await write(base, n++)) === 200) onOk();
        } catch {
          // The killed instance's connections fail.
        }
      }
    };
    const loops = [
      ...Array.from({ length: 6 }, () => loop(victim.base, () => victimOk++)),
      ...Array.from({ length: 2 }, () => loop(survivor.base, () => undefined)),
    ];
    while (victimOk < 60) await sleep(10);
    victim.child.kill('SIGKILL');
    await sleep(300);
    stop = true;
    await Promise.all(loops);

    const all = await fetch(`${survivor.base}/v1/my/anime/ratings`, { headers: headers() });
    expect(all.status).toBe(200);
    const entries = (await all.json()) as Record<string, unknown>[];
    const profile = await fetch(`${survivor.base}/v1/my/profile`, { headers: headers() });
    expect(profile.status).toBe(200);
    const { statistics } = (await profile.json()) as {
      statistics: { anime: Record<string, number> };
    };
    expect(statistics.anime).toEqual(recompute(entries));
    expect(entries.length).toBeGreaterThan(0);
  }, 90_000);
});
