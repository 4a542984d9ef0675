import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';
import { selectArrays } from '../database/select-arrays';
import { runTransaction } from '../database/transactions';
import { PROGRESS_COLUMNS } from './history-facts';
import type { Viewing } from './viewing-rules';

/** An event as stored, with its title's external_id (a read of the catalog). */
export interface StoredEvent {
  id: number;
  titleId: number;
  externalId: number | null;
  atMs: number;
  source: string;
  client: string | null;
  viewing: number | null;
  /** Per member (`status`, a progress field, `score`): its change, when it changed. */
  changes: Record<string, { from: string | number | null; to: string | number }>;
}

/** An event as the reads show it (contract §20): `status`, progress fields, `score` when changed. */
export interface EventView {
  id: number;
  title_id: number;
  external_id: number | null;
  at: string;
  source: string;
  client: string | null;
  viewing: number | null;
  [member: string]: StoredEvent['changes'][string] | string | number | null;
}

/** A new event: StoredEvent without what the read adds, and whether it restarted progress. */
export type NewEvent = Omit<StoredEvent, 'externalId'> & { restarted: boolean };

/** Which events a read wants: newest first, at most `limit`. */
export interface EventQuery {
  titleId: number | null;
  /** Only ids below it. */
  before: number | null;
  /** [from, to) on `at`, in Unix milliseconds. */
  fromMs: number | null;
  toMs: number | null;
  limit: number;
}

const MEMBERS = ['status', ...PROGRESS_COLUMNS, 'score'];
const MEMBER_COLUMNS = MEMBERS.flatMap((member) => [`${member}_from`, `${member}_to`]);
const EVENT_COLUMNS = [
  'user_id',
  'media_type',
  'id',
  'title_id',
  'at_ms',
  'source',
  'client',
  'viewing',
  ...MEMBER_COLUMNS,
  'restarted',
];
const INSERT_EVENT_SQL = `INSERT INTO history_events (${EVENT_COLUMNS.join(', ')})
  VALUES (${EVENT_COLUMNS.map(() => '?').join(', ')})`;

const SELECT_EVENTS = `SELECT e.id, e.title_id, t.external_id, e.at_ms, e.source, e.client,
  e.viewing, ${MEMBER_COLUMNS.map((column) => `e.${column}`).join(', ')}
  FROM history_events e LEFT JOIN titles t ON t.media_type = e.media_type AND t.id = e.title_id
  WHERE e.user_id = ? AND e.media_type = ?`;

const VIEWING_COLUMNS =
  'number, state, started_at, finished_at, closed_at_ms, score, progress, title_id';
const LATEST_VIEWING_SQL = `SELECT ${VIEWING_COLUMNS} FROM history_viewings
  WHERE user_id = ? AND media_type = ? AND title_id = ? ORDER BY number DESC LIMIT 1`;
const VIEWINGS_SQL = `SELECT ${VIEWING_COLUMNS} FROM history_viewings
  WHERE user_id = ? AND media_type = ? AND title_id = ? ORDER BY number`;
const ALL_VIEWINGS_SQL = `SELECT ${VIEWING_COLUMNS} FROM history_viewings
  WHERE user_id = ? AND media_type = ? ORDER BY title_id, number`;
const INSERT_VIEWING_SQL = `INSERT INTO history_viewings (user_id, media_type, title_id, number,
  state, started_at, finished_at, closed_at_ms, score, progress) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const UPDATE_VIEWING_SQL = `UPDATE history_viewings SET state = ?, started_at = ?,
  finished_at = ?, closed_at_ms = ?, score = ?, progress = ?
  WHERE user_id = ? AND media_type = ? AND title_id = ? AND number = ?`;

const LATEST_EVENT_SQL = `SELECT MAX(id) AS id FROM history_events
  WHERE user_id = ? AND media_type = ? AND title_id = ?`;

/** The statements of each combination of a read's options, made once. */
const eventsSql = new Map<string, string>();
function eventsQuerySql(query: EventQuery): string {
  const key = [query.titleId, query.before, query.fromMs, query.toMs].map((v) => v !== null);
  const name = key.join();
  let sql = eventsSql.get(name);
  if (!sql) {
    sql = [
      SELECT_EVENTS,
      key[0] ? 'AND e.title_id = ?' : '',
      key[1] ? 'AND e.id < ?' : '',
      key[2] ? 'AND e.at_ms >= ?' : '',
      key[3] ? 'AND e.at_ms < ?' : '',
      'ORDER BY e.id DESC LIMIT ?',
    ].join(' ');
    eventsSql.set(name, sql);
  }
  return sql;
}

/** Adds each member that changed to `into`, from the row's (from, to) column pairs. */
function addChanges<T extends object>(into: T, values: unknown[]): T {
  for (let i = 0; i < MEMBERS.length; i++) {
    const to = values[8 + 2 * i] as string | number | null;
    if (to === null) continue;
    const from = values[7 + 2 * i] as string | number | null;
    const member = MEMBERS[i];
    (into as Record<string, unknown>)[member] =
      member === 'status'
        ? { from, to }
        : { from: from === null ? null : Number(from), to: Number(to) };
  }
  return into;
}

function eventOfRow(values: unknown[]): StoredEvent {
  const [id, titleId, externalId, atMs, source, client, viewing] = values;
  return {
    id: Number(id),
    titleId: Number(titleId),
    externalId: externalId === null ? null : Number(externalId),
    atMs: Number(atMs),
    source: source as string,
    client: client as string | null,
    viewing: viewing === null ? null : Number(viewing),
    changes: addChanges({}, values),
  };
}

/** The view of a row, built in one step: pages of events are the hot read of this module. */
function eventViewOfRow(values: unknown[]): EventView {
  const [id, titleId, externalId, atMs, source, client, viewing] = values;
  return addChanges<EventView>(
    {
      id: Number(id),
      title_id: Number(titleId),
      external_id: externalId === null ? null : Number(externalId),
      at: new Date(Number(atMs)).toISOString(),
      source: source as string,
      client: client as string | null,
      viewing: viewing === null ? null : Number(viewing),
    },
    values,
  );
}

function viewingOfRow(values: unknown[]): Viewing & { titleId: number } {
  const [number, state, startedAt, finishedAt, closedAtMs, score, progress, titleId] = values;
  return {
    number: Number(number),
    state: state as Viewing['state'],
    startedAt: startedAt as string,
    finishedAt: finishedAt as string | null,
    closedAtMs: closedAtMs === null ? null : Number(closedAtMs),
    score: score === null ? null : Number(score),
    progress: Number(progress),
    titleId: Number(titleId),
  };
}

async function rowsIn(em: EntityManager, sql: string, parameters: unknown[]): Promise<unknown[][]> {
  const rows = await em.query<Record<string, unknown>[]>(sql, parameters);
  return rows.map((row) => Object.values(row));
}

/** The history module's tables: events and viewings (contract §20). */
@Injectable()
export class HistoryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertEvent(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    event: NewEvent,
  ): Promise<void> {
    await em.query(INSERT_EVENT_SQL, [
      userId,
      mediaType,
      event.id,
      event.titleId,
      event.atMs,
      event.source,
      event.client,
      event.viewing,
      ...MEMBERS.flatMap((member) => {
        const change = event.changes[member];
        return change ? [change.from, change.to] : [null, null];
      }),
      event.restarted ? 1 : 0,
    ]);
  }

  /** The title's latest viewing, read in the write's transaction. */
  async latestViewing(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    titleId: number,
  ): Promise<Viewing | null> {
    const [row] = await rowsIn(em, LATEST_VIEWING_SQL, [userId, mediaType, titleId]);
    return row ? viewingOfRow(row) : null;
  }

  async saveViewing(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    titleId: number,
    viewing: Viewing,
    isNew: boolean,
  ): Promise<void> {
    const values = [
      viewing.state,
      viewing.startedAt,
      viewing.finishedAt,
      viewing.closedAtMs,
      viewing.score,
      viewing.progress,
    ];
    if (isNew) {
      await em.query(INSERT_VIEWING_SQL, [userId, mediaType, titleId, viewing.number, ...values]);
    } else {
      await em.query(UPDATE_VIEWING_SQL, [...values, userId, mediaType, titleId, viewing.number]);
    }
  }

  /** Forgets the title's events and viewings (its entry is being deleted), in `em`. */
  async forgetTitle(
    em: EntityManager,
    userId: number,
    mediaType: MediaType,
    titleId: number,
  ): Promise<void> {
    await em.query(
      'DELETE FROM history_events WHERE user_id = ? AND media_type = ? AND title_id = ?',
      [userId, mediaType, titleId],
    );
    await em.query(
      'DELETE FROM history_viewings WHERE user_id = ? AND media_type = ? AND title_id = ?',
      [userId, mediaType, titleId],
    );
  }

  /** Forgets every event and viewing of the user, in `em` (erasing the user). */
  async forgetUser(em: EntityManager, userId: number): Promise<void> {
    await em.query('DELETE FROM history_events WHERE user_id = ?', [userId]);
    await em.query('DELETE FROM history_viewings WHERE user_id = ?', [userId]);
  }

  /** Events, newest first, with one more than `limit` when more remain. */
  async events(userId: number, mediaType: MediaType, query: EventQuery): Promise<EventView[]> {
    const parameters: unknown[] = [userId, mediaType];
    for (const value of [query.titleId, query.before, query.fromMs, query.toMs]) {
      if (value !== null) parameters.push(value);
    }
    parameters.push(query.limit);
    const rows = await selectArrays(this.dataSource, eventsQuerySql(query), parameters);
    return rows.map(eventViewOfRow);
  }

  /** One event of the title; null when the user has none with that id. */
  async event(
    userId: number,
    mediaType: MediaType,
    titleId: number,
    id: number,
  ): Promise<StoredEvent | null> {
    const rows = await selectArrays(
      this.dataSource,
      `${SELECT_EVENTS} AND e.title_id = ? AND e.id = ?`,
      [userId, mediaType, titleId, id],
    );
    return rows.length > 0 ? eventOfRow(rows[0]) : null;
  }

  /** The id of the title's latest event, null without one; in `manager`'s transaction if given. */
  async latestEventId(
    userId: number,
    mediaType: MediaType,
    titleId: number,
    manager?: EntityManager,
  ): Promise<number | null> {
    const parameters = [userId, mediaType, titleId];
    const [row] = manager
      ? await rowsIn(manager, LATEST_EVENT_SQL, parameters)
      : await selectArrays(this.dataSource, LATEST_EVENT_SQL, parameters);
    return row && row[0] !== null ? Number(row[0]) : null;
  }

  /** Deletes the event (if it is there), and runs `alongside` in the same transaction. */
  async deleteEvent(
    userId: number,
    mediaType: MediaType,
    titleId: number,
    id: number,
    alongside: (em: EntityManager) => Promise<void>,
  ): Promise<void> {
    await runTransaction(this.dataSource, async (em) => {
      await em.query(
        'DELETE FROM history_events WHERE user_id = ? AND media_type = ? AND title_id = ? AND id = ?',
        [userId, mediaType, titleId, id],
      );
      await alongside(em);
    });
  }

  async viewings(userId: number, mediaType: MediaType, titleId: number): Promise<Viewing[]> {
    const rows = await selectArrays(this.dataSource, VIEWINGS_SQL, [userId, mediaType, titleId]);
    return rows.map(viewingOfRow);
  }

  /** Every viewing of the user's list, by title then number. */
  async allViewings(
    userId: number,
    mediaType: MediaType,
  ): Promise<(Viewing & { titleId: number })[]> {
    const rows = await selectArrays(this.dataSource, ALL_VIEWINGS_SQL, [userId, mediaType]);
    return rows.map(viewingOfRow);
  }
}
