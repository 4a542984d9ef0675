/** A serialized 200 body and the one header that varies with it (`Link` of a paged list). */
export interface CachedBody {
  json: Buffer;
  link: string | null;
}

/**
 * Serialized bodies by the entity tag they were sent with, least recently used first out, bounded
 * in bytes. A versioned tag (contract §10) stands for one body only, so a hit is that body.
 */
export class BodyCache {
  private readonly entries = new Map<string, CachedBody>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(tag: string): CachedBody | undefined {
    const entry = this.entries.get(tag);
    if (entry) {
      this.entries.delete(tag);
      this.entries.set(tag, entry);
    }
    return entry;
  }

  /** Bodies above a quarter of the bound are not kept: one list may not push out all the others. */
  set(tag: string, entry: CachedBody): void {
    if (entry.json.length * 4 > this.maxBytes || this.entries.has(tag)) return;
    this.entries.set(tag, entry);
    this.bytes += entry.json.length;
    for (const [oldest, { json }] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= json.length;
    }
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
