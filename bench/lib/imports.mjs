// The one-shot import measurements (a MyAnimeList export through the API, an anime-offline-database
// file through the CLI) and the webhook receiver of put-update-webhook.
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { startChild } from './children.mjs';

/**
 * A MyAnimeList anime export of `count` entries, for catalog titles 1..count (external ids
 * 100_000 + id, as writeCatalogFile gives them).
 * @param {string} dir
 * @param {number} count
 */
export async function writeMalExport(dir, count) {
  const statuses = ['Completed', 'Watching', 'On-Hold', 'Dropped', 'Plan to Watch'];
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n<myinfo><user_export_type>1</user_export_type></myinfo>\n',
  ];
  for (let id = 1; id <= count; id++) {
    parts.push(
      `<anime><series_animedb_id>${100_000 + id}</series_animedb_id><series_title><![CDATA[Bench Anime ${id}]]></series_title>` +
        `<my_watched_episodes>${id % 5}</my_watched_episodes><my_score>${id % 11}</my_score>` +
        `<my_status>${statuses[id % statuses.length]}</my_status><my_times_watched>0</my_times_watched>` +
        `<update_on_import>1</update_on_import></anime>\n`,
    );
  }
  parts.push('</myanimelist>\n');
  const path = join(dir, 'animelist.xml');
  await writeFile(path, parts.join(''));
  return path;
}

/**
 * An anime-offline-database file of `count` finished anime whose MyAnimeList ids (300_001…) are
 * not in the bench catalog, so that every item is a new title.
 * @param {string} dir
 * @param {number} count
 */
export async function writeOfflineDatabase(dir, count) {
  const data = [];
  for (let i = 1; i <= count; i++) {
    data.push({
      sources: [`https://myanimelist.net/anime/${300_000 + i}`, `https://anidb.net/anime/${i}`],
      title: `Offline Anime ${i}`,
      type: 'TV',
      episodes: 1 + (i % 50),
      status: 'FINISHED',
      animeSeason: { season: 'SPRING', year: 2000 + (i % 25) },
      picture: `https://cdn.example/${i}.jpg`,
      thumbnail: `https://cdn.example/${i}-t.jpg`,
      duration: { value: 1440, unit: 'SECONDS' },
      synonyms: [`OA ${i}`, `Offline ${i}`],
      relatedAnime: [],
      tags: ['action', 'drama'],
    });
  }
  const path = join(dir, 'anime-offline-database.json');
  await writeFile(path, JSON.stringify({ license: {}, repository: 'bench', data }));
  return path;
}

/**
 * Runs `node args…` with a preload that prints the process's own peak RSS (getrusage maxrss) to
 * stderr at exit: a child's VmHWM is gone once it has exited, and sampling /proc misses short peaks.
 * @param {string[]} args
 * @param {{ env: NodeJS.ProcessEnv, cwd: string, timeoutMs?: number }} options
 * @returns {Promise<{ seconds: number, peakRssMb: number, stdout: string }>}
 */
export function runNodeWithPeakRss(args, { env, cwd, timeoutMs = 600_000 }) {
  const preload =
    'process.on("exit",()=>process.stderr.write("\\nmaxrss_kb="+process.resourceUsage().maxRSS+"\\n"))';
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--eval', `${preload};require(require("path").resolve(process.argv[1]))`, '--', ...args],
      { env, cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024, killSignal: 'SIGKILL' },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`node ${args.join(' ')} failed: ${error.message}\n${stderr}`));
          return;
        }
        const match = /maxrss_kb=(\d+)/.exec(stderr);
        resolve({
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          peakRssMb: match ? Math.round(Number(match[1]) / 1024) : NaN,
          stdout,
        });
      },
    );
  });
}

/**
 * A webhook receiver that answers 204 to everything and counts the deliveries, in a child process
 * (webhook-receiver.mjs), off the load generator's event loop.
 * @param {string} logFile
 * @returns {Promise<{ port: number, received: () => Promise<number>, close: () => Promise<void> }>}
 */
export async function startWebhookReceiver(logFile) {
  const script = join(dirname(fileURLToPath(import.meta.url)), 'webhook-receiver.mjs');
  const receiver = startChild('webhook-receiver', [script], {
    env: process.env,
    cwd: dirname(script),
    logFile,
    ipc: true,
  });
  const { child } = receiver;
  /** @returns {Promise<Record<string, number>>} */
  const reply = () =>
    new Promise((resolve, reject) => {
      const onExit = () => reject(new Error(`the webhook receiver exited; log: ${logFile}`));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.off('exit', onExit);
        resolve(/** @type {Record<string, number>} */ (message));
      });
    });
  const { port } = await reply();
  return {
    port,
    received: async () => {
      const answer = reply();
      child.send('count');
      return (await answer).received;
    },
    close: () => receiver.stop(),
  };
}
