import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

export const CLUSTER_SCRIPT = join(__dirname, '..', '..', 'scripts', 'cluster', 'cluster.mjs');

/** A fresh cluster for the run: three Galera nodes, a Redis primary + replica, three Sentinels. */
export default function clusterSetup(): void {
  execFileSync(process.execPath, [CLUSTER_SCRIPT, 'stop'], { stdio: 'inherit' });
  execFileSync(process.execPath, [CLUSTER_SCRIPT, 'start'], { stdio: 'inherit', timeout: 240_000 });
}
