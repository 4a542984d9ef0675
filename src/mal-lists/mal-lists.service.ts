import { Injectable } from '@nestjs/common';
import type { MediaType } from '../media-types/media-type';
import { ProblemException, PROBLEMS } from '../common/problem';
import type { PutRatingDto } from '../ratings/dto/entry-classes';
import { entryAfterPut } from '../ratings/rating-rules';
import { entryFieldsOf } from '../ratings/ratings.repository';
import { RatingsService, TitleWithEntryRow } from '../ratings/ratings.service';
import { UsersService } from '../users/users.service';
import { malFormatOf } from './mal-format';
import { malExportXml } from './mal-export';
import { importedFields, InvalidElementError, updatesExisting } from './mal-import';
import { MalElement, MalFileError, readMalFile } from './mal-xml-reader';

export interface SkippedElement {
  external_id: number | null;
  reason: 'not_in_catalog' | 'invalid';
  detail: string;
}

export interface ListImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: SkippedElement[];
}

/** An element that will be written: the title it names and the PUT body it amounts to. */
interface PlannedWrite {
  externalId: number;
  titleId: number;
  created: boolean;
  body: PutRatingDto;
}

const MAX_ID = 2 ** 31 - 1;

/**
 * MyAnimeList XML export and import of a user's list (contract §13). Imports write through
 * RatingsService's one write path, so they count as PUTs for statistics, versions and sync.
 */
@Injectable()
export class MalListsService {
  constructor(
    private readonly ratings: RatingsService,
    private readonly users: UsersService,
  ) {}

  fileNameOf(mediaType: MediaType): string {
    return malFormatOf(mediaType).fileName;
  }

  async export(userId: number, mediaType: MediaType): Promise<string> {
    const user = await this.users.findById(userId);
    if (!user) throw ProblemException.notFound('The user of this token no longer exists');
    const entries = await this.ratings.exportedEntries(userId, mediaType);
    return malExportXml(mediaType, user, entries);
  }

  /**
   * Reads the whole file, checks every element and looks its title up, then writes the elements
   * that change something in one transaction that holds only the writes.
   */
  async import(
    userId: number,
    mediaType: MediaType,
    text: AsyncIterable<string>,
  ): Promise<ListImportSummary> {
    const file = await readMalFile(text, mediaType).catch((error: unknown) => {
      if (error instanceof MalFileError) {
        throw ProblemException.of(
          400,
          PROBLEMS.badRequest,
          `Not a readable MyAnimeList export: ${error.message}`,
        );
      }
      throw error;
    });
    const summary: ListImportSummary = { created: 0, updated: 0, unchanged: 0, skipped: [] };
    const planned = await this.plan(userId, mediaType, file.elements, summary);
    if (planned.length > 0) {
      await this.ratings.inWriteTransaction(async (writer) => {
        for (const write of planned) {
          try {
            await writer.put(
              userId,
              mediaType,
              { id: write.titleId, byExternalId: false },
              write.body,
            );
            if (write.created) summary.created += 1;
            else summary.updated += 1;
          } catch (error) {
            // The entry or the title changed since the checks (a concurrent write): the rules
            // refused it before anything was written, so the element is reported, not applied.
            if (!(error instanceof ProblemException)) throw error;
            summary.skipped.push({
              external_id: write.externalId,
              reason: 'invalid',
              detail: error.problem.detail,
            });
          }
        }
      }, null, 'import');
    }
    return summary;
  }

  private async plan(
    userId: number,
    mediaType: MediaType,
    elements: MalElement[],
    summary: ListImportSummary,
  ): Promise<PlannedWrite[]> {
    const idElement = malFormatOf(mediaType).idElement;
    const seen = new Set<number>();
    const named: { element: MalElement; externalId: number }[] = [];
    for (const element of elements) {
      const text = element.values.get(idElement)?.trim() ?? '';
      const externalId = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
      if (!(externalId >= 1 && externalId <= MAX_ID)) {
        summary.skipped.push({
          external_id: null,
          reason: 'invalid',
          detail:
            text === ''
              ? `${idElement} is missing`
              : `${idElement} "${text.slice(0, 100)}" is not a positive integer below 2^31`,
        });
      } else if (seen.has(externalId)) {
        summary.skipped.push({
          external_id: externalId,
          reason: 'invalid',
          detail: `${idElement} ${externalId} appears a second time in the file`,
        });
      } else {
        seen.add(externalId);
        named.push({ element, externalId });
      }
    }

    const rows = new Map<number, TitleWithEntryRow>();
    for (const row of await this.ratings.titlesWithEntriesByExternalId(userId, mediaType, [
      ...seen,
    ])) {
      rows.set(Number(row.external_id), row);
    }

    const planned: PlannedWrite[] = [];
    for (const { element, externalId } of named) {
      const row = rows.get(externalId);
      if (!row) {
        summary.skipped.push({
          external_id: externalId,
          reason: 'not_in_catalog',
          detail: `No ${mediaType} title has external_id ${externalId}`,
        });
        continue;
      }
      try {
        const write = planOne(mediaType, row, element);
        if (write)
          planned.push({
            externalId,
            titleId: row.id,
            created: row.entry_id === null,
            body: write,
          });
        else summary.unchanged += 1;
      } catch (error) {
        if (error instanceof InvalidElementError) {
          summary.skipped.push({
            external_id: externalId,
            reason: 'invalid',
            detail: error.message,
          });
        } else if (error instanceof ProblemException) {
          summary.skipped.push({
            external_id: externalId,
            reason: 'invalid',
            detail: error.problem.detail,
          });
        } else {
          throw error;
        }
      }
    }
    return planned;
  }
}

/**
 * The PUT body of one element, or null when it changes nothing (or leaves an existing entry
 * alone because its update_on_import is 0). Throws InvalidElementError or a 400 ProblemException
 * (the rules of contract §6) for an element that cannot be applied.
 */
function planOne(
  mediaType: MediaType,
  row: TitleWithEntryRow,
  element: MalElement,
): PutRatingDto | null {
  const exists = row.entry_id !== null;
  const applies = updatesExisting(element);
  const fields = importedFields(mediaType, element);
  if (exists && !applies) return null;
  const stored = exists ? entryFieldsOf(row) : null;
  if (!stored && fields.status === undefined) {
    throw new InvalidElementError('my_status is missing (a new entry needs a status)');
  }
  const ratingChanges =
    fields.public_rating !== undefined && (!stored || stored.publicRating !== fields.public_rating);
  const body = {
    ...fields,
    status: fields.status ?? stored!.status,
    ...(ratingChanges ? { public_fraction: 0 } : {}),
    touch: true,
  } as PutRatingDto;
  const after = entryAfterPut(mediaType, row, body);
  if (stored && sameFields(stored, after)) return null;
  return body;
}

function sameFields<T extends object>(a: T, b: T): boolean {
  return (Object.keys(a) as (keyof T)[]).every((key) => a[key] === b[key]);
}
