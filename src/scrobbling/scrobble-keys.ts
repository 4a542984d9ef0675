import { createHash } from 'node:crypto';
import { normalizedName } from '../catalog/title-names';

/** The key of a (series name, season) pair: the unmatched list's item and its mapping. */
export function mappingKey(series: string, season: number | null): string {
  return createHash('sha256')
    .update(`${normalizedName(series)}\n${season ?? ''}`)
    .digest('hex');
}

/** How a secret is stored and looked up: 192 random bits make a plain SHA-256 enough. */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
