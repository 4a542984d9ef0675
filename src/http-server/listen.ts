import { createServer } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { AppConfig } from '../config/app-config';

/** Whether this machine can listen on IPv6 at all (a kernel without it refuses `::`). */
function ipv6Available(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, '::', () => probe.close(() => resolve(true)));
  });
}

/**
 * HOST, or, unset, every interface: `::`, which on a dual-stack system takes IPv4 as well
 * (contract §16), and `0.0.0.0` where IPv6 is unavailable.
 */
export async function listenAddress(config: AppConfig): Promise<string> {
  if (config.host !== null) return config.host;
  return (await ipv6Available()) ? '::' : '0.0.0.0';
}

/** Listens as main.ts does: PORT on HOST. */
export async function listen(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  await app.listen(config.port, await listenAddress(config));
}
