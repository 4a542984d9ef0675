import { createHash } from 'node:crypto';

/** A name as contract §21 compares names: Unicode NFKC, lower case, trimmed, whitespace collapsed. */
export function normalizedName(name: string): string {
  return name.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
}

/** The stored key of a name: the SHA-256 of its normalized form (any length fits one index). */
export function nameKey(name: string): string {
  return createHash('sha256').update(normalizedName(name)).digest('hex');
}

/** The cross-reference kinds of contract §21, in the order in which they decide. */
export const CROSS_REF_KINDS = ['anilist', 'anidb', 'kitsu'] as const;
export type CrossRefKind = (typeof CROSS_REF_KINDS)[number];
export type CrossRefs = Partial<Record<CrossRefKind, number>>;
