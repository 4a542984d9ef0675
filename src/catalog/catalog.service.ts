import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { MEDIA_TYPES, type MediaType } from '../common/media-type';
import { runTransaction } from '../database/transactions';
import { CatalogFileError, TitleRecord } from './catalog-file';
import { PUBLIC_ENTRY_CONDITION } from '../ratings/public-view.policy';
import { Title } from './title.entity';

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
}

// SQLite rejects very large statements ("Expression tree is too large"): insert in batches.
const INSERT_BATCH = 200;

@Injectable()
export class CatalogService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Creates new titles and updates changed ones in place, in one transaction: all or nothing.
   * Users' entries are never touched.
   */
  async import(records: TitleRecord[]): Promise<ImportSummary> {
    return runTransaction(this.dataSource, async (manager) => {
      const summary: ImportSummary = { created: 0, updated: 0, unchanged: 0 };
      const existing = new Map<string, Title>();
      for (const title of await manager.find(Title)) existing.set(keyOf(title), title);

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
          await manager.update(
            Title,
            { mediaType: record.mediaType, id: record.id },
            { externalId: null },
          );
        }
      }
      for (const record of changed) {
        const { mediaType, id, ...fields } = record;
        await manager.update(Title, { mediaType, id }, fields);
      }
      for (let i = 0; i < created.length; i += INSERT_BATCH) {
        await manager.insert(Title, created.slice(i, i + INSERT_BATCH));
      }
      await listsHoldingChanged(manager, changed);
      summary.created = created.length;
      summary.updated = changed.length;
      return summary;
    });
  }
}

/**
 * The lists and profiles that show a changed title have a new body (decisions §10): their
 * versions move, in the import's transaction; every other list keeps its version and ETag. Public
 * versions move only where the title's entry is visible (decisions §18).
 */
async function listsHoldingChanged(manager: EntityManager, changed: TitleRecord[]): Promise<void> {
  for (const mediaType of MEDIA_TYPES) {
    const ids = changed.filter((record) => record.mediaType === mediaType).map((r) => r.id);
    for (let i = 0; i < ids.length; i += INSERT_BATCH) {
      const batch = ids.slice(i, i + INSERT_BATCH);
      const holders = `SELECT DISTINCT user_id FROM rating_entries
        WHERE media_type = ? AND title_id IN (${batch.map(() => '?').join(', ')})`;
      await manager.query(
        `UPDATE users SET list_version = list_version + 1 WHERE id IN (${holders})`,
        [mediaType, ...batch],
      );
      // The public version too, for the lists where another user sees a changed title.
      const visibleHolders = `SELECT DISTINCT e.user_id FROM rating_entries e
        WHERE e.media_type = ? AND e.title_id IN (${batch.map(() => '?').join(', ')})
          AND ${PUBLIC_ENTRY_CONDITION}`;
      await manager.query(
        `UPDATE rating_revisions SET catalog_version = catalog_version + 1,
            public_version = public_version
              + CASE WHEN user_id IN (${visibleHolders}) THEN 1 ELSE 0 END
          WHERE media_type = ? AND user_id IN (${holders})`,
        [mediaType, ...batch, mediaType, mediaType, ...batch],
      );
    }
  }
}

/** An external id may not move to a title while a title outside the file still holds it. */
function checkExternalIdsFree(records: TitleRecord[], existing: Map<string, Title>): void {
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

function sameTitle(stored: Title, record: TitleRecord): boolean {
  return (
    stored.externalId === record.externalId &&
    stored.title === record.title &&
    stored.episodes === record.episodes &&
    stored.episodeMinutes === record.episodeMinutes &&
    stored.chapters === record.chapters &&
    stored.volumes === record.volumes
  );
}
