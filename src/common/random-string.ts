import { randomBytes } from 'node:crypto';

/**
 * `bytes` from the CSPRNG as base64url, never starting with "-": tokens and client ids are
 * arguments of the CLI (`tokens revoke TOKEN`, `clients delete CLIENT_ID`), where a leading "-"
 * would be read as an option. Drawing again costs 1 draw in 64 and under 0.03 bits of entropy.
 */
export function randomBase64Url(bytes: number): string {
  for (;;) {
    const value = randomBytes(bytes).toString('base64url');
    if (!value.startsWith('-')) return value;
  }
}
