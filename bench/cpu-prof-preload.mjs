// Preloaded into the server (`node --import`) by `npm run bench -- --cpu-prof`: the bench asks over
// IPC for a CPU profile of each measured phase, so every scenario gets its own .cpuprofile.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import process from 'node:process';

/** @typedef {{ id: number, cmd: 'start' | 'stop', file?: string }} ProfilerRequest */

if (typeof process.send === 'function') {
  const session = new Session();
  session.connect();
  /** @param {ProfilerRequest} request @returns {Promise<void>} */
  const handle = (request) =>
    new Promise((resolve, reject) => {
      if (request.cmd === 'start') {
        session.post('Profiler.enable', (error) => {
          if (error) return reject(error);
          session.post('Profiler.setSamplingInterval', { interval: 500 }, (error2) => {
            if (error2) return reject(error2);
            session.post('Profiler.start', (error3) => (error3 ? reject(error3) : resolve()));
          });
        });
      } else if (request.cmd === 'stop' && request.file) {
        const file = request.file;
        session.post('Profiler.stop', (error, result) => {
          if (error) return reject(error);
          writeFileSync(file, JSON.stringify(result.profile));
          resolve();
        });
      } else {
        reject(new Error(`unknown profiler request ${JSON.stringify(request)}`));
      }
    });

  process.on('message', (/** @type {ProfilerRequest} */ request) => {
    const reply = (/** @type {Record<string, unknown>} */ extra) =>
      process.send?.({ id: request.id, ...extra });
    handle(request).then(
      () => reply({ ok: true }),
      (/** @type {unknown} */ error) => reply({ ok: false, error: String(error) }),
    );
  });
  // The IPC channel must not keep the server alive once it is asked to stop.
  process.channel?.unref();
}
