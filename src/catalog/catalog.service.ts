import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MEDIA_TYPES, type MediaType } from '../media-types/media-type';
import {
  deleteWhereIn,
  findWhereIn,
  inBatches,
  insertRows,
  updateRow,
} from '../database/bulk-statements';
import { runTransaction } from '../database/transactions';
import { CatalogFileError, TitleRecord } from './catalog-file';
import { offlineDatabaseItems, offlineTitleOf, OfflineTitle } from './offline-database';
import { TitleChangeHooks } from './title-change-hooks';
import { NO_FACTS, sameFacts, type TitleFacts } from './title-facts';
import { TitleTag } from './title-tag.entity';
import { TitleCrossRefsStore, type NamedTitle } from './title-cross-refs';
import { Title } from './title.entity';

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
}

export interface OfflineImportSummary extends ImportSummary {
  skipped: number;
}

/** Items per transaction of an anime-offline-database import: each lasts a few milliseconds. */
const OFFLINE_BATCH = 500;

// SQLite rejects very large statements ("Expression tree is too large"): insert in batches.
const INSERT_BATCH = 200;

/** Ids per look-up statement: well within both databases' limits on parameters. */
const LOOKUP_BATCH = 500;

@Injectable()
export class CatalogService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly changeHooks: TitleChangeHooks,
    private readonly crossRefs: TitleCrossRefsStore,
  ) {}

  /**
   * Creates new titles and updates changed ones in place, in one transaction: all or nothing.
   * Users' entries are never touched.
   */
  async import(records: TitleRecord[]): Promise<ImportSummary> {
    return runTransaction(this.dataSource, async (manager) => {
      const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0 };
      const existing = new Map<string, StoredTitle>();
      const tags = await this.allTags(manager);
      for (const title of await manager.find(Title)) {
        existing.set(keyOf(title), { ...title, tags: tags.get(keyOf(title)) ?? [] });
      }

      checkExternalIdsFree(records, existing);

      const created: TitleRecord[] = [];
      const changed: TitleRecord[] = [];
      for (const record of records) {
        const current = existing.get(keyOf(record));
        if (!current) created.push(record);
        else if (sameTitle(current, record)) summary.unchanged += 1;
        else changed.push(record);
      }

      // Release the external ids that move first, so that two titles can swap them.
      for (const record of changed) {
        const current = existing.get(keyOf(record))!;
        if (current.externalId !== record.externalId && current.externalId !== null) {
          await updateRow(
            manager,
            Title,
            { mediaType: record.mediaType, id: record.id },
            { externalId: null },
          );
        }
      }
      await this.crossRefs.replaceFromFile(manager, records);
      return this.write(manager, { created, changed }, summary);
    });
  }

  /**
   * Imports the anime of a manami-project anime-offline-database file (contract §14). A first
   * pass reads the whole file to check its format (nothing is written when it fails); the second
   * applies it in batches of short transactions, so the API keeps serving writes meanwhile. Both
   * passes stream the file: memory stays bounded whatever its size.
   */
  async importOfflineDatabase(file: string): Promise<OfflineImportSummary> {
    for await (const item of offlineDatabaseItems(file)) void item;

    const summary: OfflineImportSummary = { created: 0, updated: 0, unchanged: 0, skipped: 0 };
    const seen = new Set<number>();
    let batch: OfflineTitle[] = [];
    const flush = async () => {
      const done = await this.upsertAnimeByExternalId(batch);
      summary.created += done.created;
      summary.updated += done.updated;
      summary.unchanged += done.unchanged;
      batch = [];
    };
    for await (const item of offlineDatabaseItems(file)) {
      const title = offlineTitleOf(item);
      if (!title || seen.has(title.externalId)) {
        summary.skipped += 1;
        continue;
      }
      seen.add(title.externalId);
      batch.push(title);
      if (batch.length === OFFLINE_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    return summary;
  }

  /**
   * One batch of anime from the anime-offline-database (contract §14), in one short
   * transaction: a title holding the external_id is updated in place, a new one gets the next id
   * (highest anime id + 1, in the batch's order). Users' entries are never touched.
   */
  async upsertAnimeByExternalId(batch: OfflineTitle[]): Promise<ImportSummary> {
    return runTransaction(this.dataSource, async (manager) => {
      const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0 };
      const existing = new Map<number, StoredTitle>();
      const found = await findWhereIn(
        manager,
        Title,
        {
          equal: { mediaType: 'anime' },
          property: 'externalId',
          values: batch.map((item) => item.externalId),
        },
        LOOKUP_BATCH,
      );
      const tags = await this.tagsOf(
        manager,
        'anime',
        found.map((title) => title.id),
      );
      for (const title of found) {
        existing.set(title.externalId!, { ...title, tags: tags.get(keyOf(title)) ?? [] });
      }
      const [{ highest }] = await manager.query<{ highest: number | string | null }[]>(
        "SELECT MAX(id) AS highest FROM titles WHERE media_type = 'anime'",
      );
      let nextId = Number(highest ?? 0) + 1;
      const created: TitleRecord[] = [];
      const changed: TitleRecord[] = [];
      const named: NamedTitle[] = [];
      for (const item of batch) {
        const current = existing.get(item.externalId);
        const record: TitleRecord = {
          mediaType: 'anime',
          id: current ? current.id : nextId++,
          externalId: item.externalId,
          title: item.title,
          episodes: item.episodes,
          episodeMinutes: item.episodeMinutes,
          chapters: null,
          volumes: null,
          facts: item.facts,
        };
        named.push({ ...record, crossRefs: item.crossRefs });
        if (!current) created.push(record);
        else if (sameTitle(current, record)) summary.unchanged += 1;
        else changed.push(record);
      }
      await this.crossRefs.replaceSkippingTaken(manager, named);
      return this.write(manager, { created, changed }, summary);
    });
  }

  /** The external ids of these titles of the media type (null: it has none, or no such title). */
  async externalIds(mediaType: MediaType, ids: number[]): Promise<Map<number, number | null>> {
    const titles = await findWhereIn(
      this.dataSource.manager,
      Title,
      { equal: { mediaType }, property: 'id', values: ids },
      LOOKUP_BATCH,
    );
    return new Map(titles.map((title) => [title.id, title.externalId]));
  }

  /** Writes the changed and the new titles, in the caller's transaction, and completes the summary. */
  private async write(
    manager: EntityManager,
    { created, changed }: { created: TitleRecord[]; changed: TitleRecord[] },
    summary: ImportSummary,
  ): Promise<ImportSummary> {
    for (const record of changed) {
      const { mediaType, id, ...fields } = columnsOf(record);
      await updateRow(manager, Title, { mediaType, id }, fields);
    }
    for (const mediaType of MEDIA_TYPES) {
      const ids = changed.filter((record) => record.mediaType === mediaType).map((r) => r.id);
      const where = { equal: { mediaType }, property: 'titleId' as const, values: ids };
      await deleteWhereIn(manager, TitleTag, where, LOOKUP_BATCH);
    }
    await insertRows(manager, Title, created.map(columnsOf), INSERT_BATCH);
    const tagRows = [...changed, ...created].flatMap((record) =>
      factsOf(record).tags.map((tag, position) => ({
        mediaType: record.mediaType,
        titleId: record.id,
        position,
        tag,
      })),
    );
    await insertRows(manager, TitleTag, tagRows, INSERT_BATCH);
    await this.titlesChanged(manager, changed);
    summary.created = created.length;
    summary.updated = changed.length;
    return summary;
  }

  /** Every title's tags, in order, by `media_type:id`. */
  private async allTags(manager: EntityManager): Promise<Map<string, string[]>> {
    return groupedTags(
      await manager.find(TitleTag, {
        order: { mediaType: 'ASC', titleId: 'ASC', position: 'ASC' },
      }),
    );
  }

  /** The tags of these titles of the media type, in order, by `media_type:id`. */
  private async tagsOf(
    manager: EntityManager,
    mediaType: MediaType,
    ids: number[],
  ): Promise<Map<string, string[]>> {
    const rows = await findWhereIn(
      manager,
      TitleTag,
      { equal: { mediaType }, property: 'titleId', values: ids },
      LOOKUP_BATCH,
      ['titleId', 'position'],
    );
    return groupedTags(rows);
  }

  /**
   * What shows a changed title changes with it, in this transaction: the lists holding one have a
   * new body, and the ratings module's hook moves their versions (TitleChangeHooks).
   */
  private async titlesChanged(manager: EntityManager, changed: TitleRecord[]): Promise<void> {
    for (const mediaType of MEDIA_TYPES) {
      const ids = changed.filter((record) => record.mediaType === mediaType).map((r) => r.id);
      for (const batch of inBatches(ids, INSERT_BATCH)) {
        await this.changeHooks.run(manager, mediaType, batch);
      }
    }
  }
}

/** A stored title with its tags. */
type StoredTitle = Title & { tags: string[] };

function groupedTags(rows: TitleTag[]): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const row of rows) {
    const key = `${row.mediaType}:${row.titleId}`;
    const list = tags.get(key);
    if (list) list.push(row.tag);
    else tags.set(key, [row.tag]);
  }
  return tags;
}

function factsOf(record: TitleRecord): TitleFacts {
  return record.facts ?? NO_FACTS;
}

/**
 * The record as the columns of `titles` (the tags are rows of `title_tags`; the cross-references
 * are TitleCrossRefsStore's).
 */
function columnsOf(record: TitleRecord): Omit<Title, never> {
  const { mediaType, id, externalId, title, episodes, episodeMinutes, chapters, volumes } = record;
  const { year, season, format } = factsOf(record);
  return {
    mediaType,
    id,
    externalId,
    title,
    episodes,
    episodeMinutes,
    chapters,
    volumes,
    year,
    season,
    format,
  };
}

/** An external id may not move to a title while a title outside the file still holds it. */
function checkExternalIdsFree(records: TitleRecord[], existing: Map<string, StoredTitle>): void {
  const inFile = new Set(records.map(keyOf));
  const heldOutside = new Map<string, Title>();
  for (const title of existing.values()) {
    if (title.externalId !== null && !inFile.has(keyOf(title))) {
      heldOutside.set(`${title.mediaType}:${title.externalId}`, title);
    }
  }
  records.forEach((record, index) => {
    const holder = heldOutside.get(`${record.mediaType}:${record.externalId}`);
    if (record.externalId !== null && holder) {
      throw new CatalogFileError(
        `record ${index + 1} (${record.mediaType} id ${record.id}): external_id ${record.externalId} already belongs to ${record.mediaType} id ${holder.id}`,
      );
    }
  });
}

function keyOf(title: { mediaType: MediaType; id: number }): string {
  return `${title.mediaType}:${title.id}`;
}

function sameTitle(stored: StoredTitle, record: TitleRecord): boolean {
  return (
    sameFacts(stored as TitleFacts, factsOf(record)) &&
    stored.externalId === record.externalId &&
    stored.title === record.title &&
    stored.episodes === record.episodes &&
    stored.episodeMinutes === record.episodeMinutes &&
    stored.chapters === record.chapters &&
    stored.volumes === record.volumes
  );
}
