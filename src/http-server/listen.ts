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

/** A listen refused for a reason the operator fixes in PORT or HOST; the message says which. */
export class ListenError extends Error {}

function listenError(error: unknown, port: number, host: string): ListenError | null {
  const on = `port ${port} on ${host.includes(':') ? `[${host}]` : host}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ListenError(
        `Cannot listen on ${on}: the port is already in use (EADDRINUSE). Stop the process that listens there or set PORT to a free port.`,
      );
    case 'EACCES':
      return new ListenError(
        `Cannot listen on ${on}: permission denied (EACCES). Ports below 1024 need privileges: set PORT to 1024 or above.`,
      );
    case 'EADDRNOTAVAIL':
      return new ListenError(
        `Cannot listen on ${on}: HOST is not an address of this machine (EADDRNOTAVAIL). Set HOST to one of its addresses, or leave it unset to listen on all.`,
      );
    default:
      return null;
  }
}

/** Listens as main.ts does: PORT on HOST. */
export async function listen(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const host = await listenAddress(config);
  try {
    await app.listen(config.port, host);
  } catch (error) {
    throw listenError(error, config.port, host) ?? error;
  }
}
