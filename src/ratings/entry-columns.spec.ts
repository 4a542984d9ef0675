import { ENTRY_COLUMNS, entryDefaults, type EntryColumn } from '../media-types/entry-columns';
import {
  columnValuesOf,
  compileRowToView,
  entryFieldsOfRow,
  entryFieldsOfType,
} from '../media-types/entry-mapping';
import { entryStatements } from './entry-statements';
import { ANIME } from '../media-types/anime.descriptor';

// docs/extending.md "Add a field to entries": a new shared column in the list reaches every statement and
// every view, in its place.
describe('a field added to the column list', () => {
  const IS_FAVORITE = {
    column: 'is_favorite',
    property: 'isFavorite',
    type: 'boolean',
    kind: 'shared',
    default: false,
  } as const satisfies EntryColumn;
  const columns = [...ENTRY_COLUMNS, IS_FAVORITE];
  const statements = entryStatements(columns);

  it('is read by every statement, after the other fields and before the timestamps', () => {
    for (const sql of [
      statements.allEntries,
      statements.titleWithEntry.byId,
      statements.writtenBetween,
      statements.exportedEntries,
    ]) {
      expect(sql).toContain(
        'e.priority AS priority, e.is_favorite AS is_favorite, e.created_at AS created_at',
      );
    }
    expect(statements.publicEntries).toContain('e.is_favorite AS is_favorite');
  });

  it('is written by the upsert, and updated on conflict', () => {
    const { sqlite, mysql } = statements.upsertEntry;
    expect(sqlite.keep).toContain('priority, is_favorite, created_at, updated_at, revision)');
    expect(sqlite.keep.match(/\?/g)).toHaveLength(3 + columns.length + 3);
    expect(sqlite.keep).toContain('is_favorite = excluded.is_favorite');
    expect(mysql.touch).toContain('is_favorite = VALUES(is_favorite)');
  });

  it("is in every media type's view, read from its place in the row", () => {
    const toView = compileRowToView<Record<string, unknown>>(
      entryFieldsOfType(ANIME, columns),
      columns,
    );
    const row = [
      12,
      5114,
      'FMA',
      'completed',
      1,
      9,
      5,
      95,
      64,
      0,
      0,
      null,
      null,
      0,
      0,
      0,
      '',
      0,
      1,
      '2024-01-02 10:00:00.000',
      '2024-01-03 08:30:00.000',
    ];
    const view = toView(row);
    expect(view.is_favorite).toBe(true);
    expect(Object.keys(view).slice(-3)).toEqual(['is_favorite', 'created_at', 'updated_at']);
    expect(view.created_at).toBe('2024-01-02T10:00:00Z');
  });

  it('has its default on create, and is read and written like the others', () => {
    expect(entryDefaults(columns)).toMatchObject({ isFavorite: false });
    const stored = Object.fromEntries(columns.map(({ column }) => [column, 0]));
    const fields = entryFieldsOfRow({ ...stored, status: 'completed', is_favorite: 1 }, columns);
    expect(fields).toMatchObject({ isFavorite: true, isVisible: false });
    expect(columnValuesOf(fields, columns).at(-1)).toBe(1);
  });
});
