import { ENTRY_COLUMNS, type EntryColumn } from '../media-types/entry-columns';
import {
  PUBLIC_ENTRY_CONDITION,
  PUBLIC_VIEW_HIDDEN_FIELDS,
} from '../media-types/public-view.policy';

type Dialect = 'sqlite' | 'mysql';

/**
 * The statements that read and write entries, with their columns in ENTRY_COLUMNS order. Made once,
 * when the module loads: the hot paths skip TypeORM's per-call query building (see BENCHMARKS.md).
 * Every read's first columns are those of `allEntries`, in the same order (see RowValues).
 * `titles` is the catalog's table: the reads join it as a read of the catalog, so that each stays
 * one statement.
 */
export function entryStatements(columns: readonly EntryColumn[] = ENTRY_COLUMNS) {
  const read = [...columns.map(({ column }) => column), 'created_at', 'updated_at'];
  const entryColumns = read.map((column) => `e.${column} AS ${column}`).join(', ');

  const allEntries = `SELECT t.id AS id, t.external_id AS external_id, t.title AS title, ${entryColumns}
  FROM rating_entries e INNER JOIN titles t ON t.media_type = e.media_type AND t.id = e.title_id
  WHERE e.user_id = ? AND e.media_type = ? ORDER BY e.title_id`;

  // As another user may read it: visible entries, hidden columns never read.
  const publicEntries = allEntries
    .replace(
      entryColumns,
      read
        .map((column) =>
          (PUBLIC_VIEW_HIDDEN_FIELDS as readonly string[]).includes(column)
            ? `NULL AS ${column}`
            : `e.${column} AS ${column}`,
        )
        .join(', '),
    )
    .replace('ORDER BY e.title_id', `AND ${PUBLIC_ENTRY_CONDITION} ORDER BY e.title_id`);

  const titleWithEntry = (titleKey: 'id' | 'external_id') => `SELECT t.id AS id,
  t.external_id AS external_id, t.title AS title, ${entryColumns}, e.id AS entry_id,
  t.episodes AS episodes, t.chapters AS chapters, t.volumes AS volumes
  FROM titles t LEFT JOIN rating_entries e
    ON e.user_id = ? AND e.media_type = t.media_type AND e.title_id = t.id
  WHERE t.media_type = ? AND t.${titleKey} = ?`;

  // Entries whose last write has a revision in a range, oldest write first (the changes feed).
  const writtenBetween = `SELECT t.id AS id, t.external_id AS external_id, t.title AS title, ${entryColumns},
  e.revision AS revision
  FROM rating_entries e INNER JOIN titles t ON t.media_type = e.media_type AND t.id = e.title_id
  WHERE e.user_id = ? AND e.media_type = ? AND e.revision > ? AND e.revision <= ?
  ORDER BY e.revision LIMIT ?`;

  // The entries an export writes (contract §13): titles with an external_id, not_interested left
  // out; then the title's counts.
  const exportedEntries = `SELECT t.id AS id, t.external_id AS external_id, t.title AS title, ${entryColumns},
  t.episodes AS episodes, t.chapters AS chapters, t.volumes AS volumes
  FROM rating_entries e INNER JOIN titles t ON t.media_type = e.media_type AND t.id = e.title_id
  WHERE e.user_id = ? AND e.media_type = ? AND t.external_id IS NOT NULL
    AND e.status <> 'not_interested'
  ORDER BY e.title_id`;

  const written = columns.map(({ column }) => column);
  const upsertColumns = [
    'user_id',
    'media_type',
    'title_id',
    ...written,
    'created_at',
    'updated_at',
    'revision',
  ];
  const updatedOnConflict = [...written, 'revision'];
  /** One statement that creates the entry or updates it in place: concurrent writers never collide. */
  const upsertEntry = (dialect: Dialect, touch: boolean): string => {
    const updated = touch ? [...updatedOnConflict, 'updated_at'] : updatedOnConflict;
    const insert = `INSERT INTO rating_entries (${upsertColumns.join(', ')})
    VALUES (${upsertColumns.map(() => '?').join(', ')})`;
    return dialect === 'sqlite'
      ? `${insert} ON CONFLICT (user_id, media_type, title_id) DO UPDATE SET ${updated
          .map((column) => `${column} = excluded.${column}`)
          .join(', ')}`
      : `${insert} ON DUPLICATE KEY UPDATE ${updated
          .map((column) => `${column} = VALUES(${column})`)
          .join(', ')}`;
  };

  return {
    allEntries,
    publicEntries,
    titleWithEntry: { byId: titleWithEntry('id'), byExternalId: titleWithEntry('external_id') },
    writtenBetween,
    exportedEntries,
    upsertEntry: {
      sqlite: { touch: upsertEntry('sqlite', true), keep: upsertEntry('sqlite', false) },
      mysql: { touch: upsertEntry('mysql', true), keep: upsertEntry('mysql', false) },
    },
  };
}
