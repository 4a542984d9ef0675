import { execFileSync } from 'node:child_process';
import { CLUSTER_SCRIPT } from './cluster-setup';

export default function clusterTeardown(): void {
  if (process.env.KEEP_CLUSTER === '1') return;
  execFileSync(process.execPath, [CLUSTER_SCRIPT, 'stop'], { stdio: 'inherit' });
}
