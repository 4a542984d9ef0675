import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { InjectDataSource } from '@nestjs/typeorm';
import type { MediaType } from '../media-types/media-type';
import { deleteWhereIn, findWhereIn, insertRows } from '../database/bulk-statements';
import { CatalogFileError } from './catalog-file';
import { TitleName } from './title-name.entity';
import { CROSS_REF_KINDS, nameKey, type CrossRefKind, type CrossRefs } from './title-names';
import { TitleRef } from './title-ref.entity';

/** What a catalog record says of a title besides its fields (contract §21). */
export interface TitleCrossRefs {
  ids: CrossRefs;
  synonyms: string[];
}

/** A title of an import with its names: `title` and, when the record gives them, ids and synonyms. */
export interface NamedTitle {
  mediaType: MediaType;
  id: number;
  title: string;
  crossRefs?: TitleCrossRefs;
}

const BATCH = 200;

/**
 * The titles' cross-reference ids and name keys (contract §21), written with the catalog's
 * imports and read by matching. One id of a kind names at most one title of a media type.
 */
@Injectable()
export class TitleCrossRefsStore {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * The generic file describes its titles whole: each one's ids and synonyms become the record's
   * (none when absent). Refused whole when an id is held by a title outside the file.
   */
  async replaceFromFile(manager: EntityManager, titles: NamedTitle[]): Promise<void> {
    for (const mediaType of new Set(titles.map((title) => title.mediaType))) {
      const ofType = titles.filter((title) => title.mediaType === mediaType);
      const inFile = new Set(ofType.map((title) => title.id));
      for (const kind of CROSS_REF_KINDS) {
        const wanted = ofType.filter((title) => title.crossRefs?.ids[kind] !== undefined);
        for (const holder of await this.holders(manager, mediaType, kind, wanted)) {
          if (inFile.has(holder.titleId)) continue;
          const record = wanted.find((title) => title.crossRefs!.ids[kind] === holder.refId)!;
          throw new CatalogFileError(
            `${mediaType} id ${record.id}: ids.${kind} ${holder.refId} already belongs to ${mediaType} id ${holder.titleId}`,
          );
        }
      }
    }
    await this.write(manager, titles, () => true);
  }

  /**
   * anime-offline-database items, in file order: an id already held by another title (stored, or
   * an earlier item) is not given; the rest of the item is imported (contract §21).
   */
  async replaceSkippingTaken(manager: EntityManager, titles: NamedTitle[]): Promise<void> {
    const taken = new Map<string, number>();
    for (const mediaType of new Set(titles.map((title) => title.mediaType))) {
      const ofType = titles.filter((title) => title.mediaType === mediaType);
      for (const kind of CROSS_REF_KINDS) {
        for (const holder of await this.holders(manager, mediaType, kind, ofType)) {
          taken.set(`${mediaType}:${kind}:${holder.refId}`, holder.titleId);
        }
      }
    }
    await this.write(manager, titles, (title, kind, refId) => {
      const key = `${title.mediaType}:${kind}:${refId}`;
      const holder = taken.get(key);
      if (holder !== undefined && holder !== title.id) return false;
      taken.set(key, title.id);
      return true;
    });
  }

  /** Titles whose cross-reference id of `kind` is `refId` (at most one). */
  async titleOfRef(
    mediaType: MediaType,
    kind: CrossRefKind,
    refId: number,
  ): Promise<number | null> {
    const row = await this.dataSource.getRepository(TitleRef).findOne({
      where: { mediaType, kind, refId },
    });
    return row?.titleId ?? null;
  }

  /** The title whose external id (MyAnimeList id) is `externalId`. */
  async titleOfExternalId(mediaType: MediaType, externalId: number): Promise<number | null> {
    const rows = await this.dataSource.query<{ id: number | string }[]>(
      'SELECT id FROM titles WHERE media_type = ? AND external_id = ?',
      [mediaType, externalId],
    );
    return rows.length > 0 ? Number(rows[0].id) : null;
  }

  /** Whether the catalog has the title. */
  async exists(mediaType: MediaType, id: number): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      'SELECT id FROM titles WHERE media_type = ? AND id = ?',
      [mediaType, id],
    );
    return rows.length > 0;
  }

  /** The ids of the titles (at most two: enough to tell "exactly one") named `name`. */
  async titlesNamed(mediaType: MediaType, name: string): Promise<number[]> {
    const rows = await this.dataSource.query<{ title_id: number | string }[]>(
      'SELECT DISTINCT title_id FROM title_names WHERE media_type = ? AND name_key = ? LIMIT 2',
      [mediaType, nameKey(name)],
    );
    return rows.map((row) => Number(row.title_id));
  }

  private async holders(
    manager: EntityManager,
    mediaType: MediaType,
    kind: CrossRefKind,
    titles: NamedTitle[],
  ): Promise<TitleRef[]> {
    const refIds = titles
      .map((title) => title.crossRefs?.ids[kind])
      .filter((id): id is number => id !== undefined);
    return findWhereIn(
      manager,
      TitleRef,
      { equal: { mediaType, kind }, property: 'refId', values: refIds },
      BATCH,
    );
  }

  private async write(
    manager: EntityManager,
    titles: NamedTitle[],
    mayHold: (title: NamedTitle, kind: CrossRefKind, refId: number) => boolean,
  ): Promise<void> {
    for (const mediaType of new Set(titles.map((title) => title.mediaType))) {
      const ids = titles.filter((title) => title.mediaType === mediaType).map((title) => title.id);
      const where = { equal: { mediaType }, property: 'titleId' as const, values: ids };
      await deleteWhereIn(manager, TitleRef, where, BATCH);
      await deleteWhereIn(manager, TitleName, where, BATCH);
    }
    const refs: TitleRef[] = [];
    const names = new Map<string, TitleName>();
    for (const title of titles) {
      for (const kind of CROSS_REF_KINDS) {
        const refId = title.crossRefs?.ids[kind];
        if (refId !== undefined && mayHold(title, kind, refId)) {
          refs.push({ mediaType: title.mediaType, kind, refId, titleId: title.id });
        }
      }
      for (const name of [title.title, ...(title.crossRefs?.synonyms ?? [])]) {
        const key = nameKey(name);
        names.set(`${title.mediaType}:${title.id}:${key}`, {
          mediaType: title.mediaType,
          titleId: title.id,
          nameKey: key,
        });
      }
    }
    await insertRows(manager, TitleRef, refs, BATCH);
    await insertRows(manager, TitleName, [...names.values()], BATCH);
  }
}
