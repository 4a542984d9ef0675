// The one-connection latency probe in a process of its own: alongside a load, the load
// generator's event loop is busy reading the load's answers, and a probe sharing it would measure
// that wait instead of the server's.
import process from 'node:process';
import { probeLatency } from './load.mjs';

const input = /** @type {unknown} */ (JSON.parse(process.argv[2] ?? '{}'));
const { scenario, options } =
  /** @type {{ scenario: import('./load.mjs').Scenario, options: { baseUrl: string, seconds: number, maxRequests?: number } }} */ (
    input
  );
const result = await probeLatency(scenario, options);
process.stdout.write(`${JSON.stringify(result)}\n`);
