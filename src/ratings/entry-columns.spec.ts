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
/** The row a read gives for these columns: the title's three values, one per column, the times. */
function rowOf(columns: readonly EntryColumn[], values: Record<string, unknown>): unknown[] {
  return [
    12,
    5114,
    'FMA',
    ...columns.map(({ column, default: value }) => values[column] ?? (value === true ? 1 : value)),
    '2024-01-02 10:00:00.000',
    '2024-01-03 08:30:00.000',
  ];
}

describe('a field added to the column list', () => {
  // A name no column of the list can already have, whatever fields are added to it.
  const IS_FAVORITE = {
    column: 'zz_spec_favorite',
    property: 'zzSpecFavorite',
    type: 'boolean',
    kind: 'shared',
    default: false,
  } as const satisfies EntryColumn;
  const columns = [...ENTRY_COLUMNS, IS_FAVORITE];
  const statements = entryStatements(columns);

  const last = ENTRY_COLUMNS[ENTRY_COLUMNS.length - 1].column;

  it('is read by every statement, after the other fields and before the timestamps', () => {
    for (const sql of [
      statements.allEntries,
      statements.titleWithEntry.byId,
      statements.writtenBetween,
      statements.exportedEntries,
    ]) {
      expect(sql).toContain(
        `e.${last} AS ${last}, e.zz_spec_favorite AS zz_spec_favorite, e.created_at AS created_at`,
      );
    }
    expect(statements.publicEntries).toContain('e.zz_spec_favorite AS zz_spec_favorite');
  });

  it('is written by the upsert, and updated on conflict', () => {
    const { sqlite, mysql } = statements.upsertEntry;
    expect(sqlite.keep).toContain(`${last}, zz_spec_favorite, created_at, updated_at, revision)`);
    expect(sqlite.keep.match(/\?/g)).toHaveLength(3 + columns.length + 3);
    expect(sqlite.keep).toContain('zz_spec_favorite = excluded.zz_spec_favorite');
    expect(mysql.touch).toContain('zz_spec_favorite = VALUES(zz_spec_favorite)');
  });

  it("is in every media type's view, read from its place in the row", () => {
    const toView = compileRowToView<Record<string, unknown>>(
      entryFieldsOfType(ANIME, columns),
      columns,
    );
    const row = rowOf(columns, { status: 'completed', zz_spec_favorite: 1 });
    const view = toView(row);
    expect(view.zz_spec_favorite).toBe(true);
    expect(Object.keys(view).slice(-3)).toEqual(['zz_spec_favorite', 'created_at', 'updated_at']);
    expect(view.created_at).toBe('2024-01-02T10:00:00Z');
  });

  it('has its default on create, and is read and written like the others', () => {
    expect(entryDefaults(columns)).toMatchObject({ zzSpecFavorite: false });
    const stored = Object.fromEntries(columns.map(({ column }) => [column, 0]));
    const fields = entryFieldsOfRow(
      { ...stored, status: 'completed', zz_spec_favorite: 1 },
      columns,
    );
    expect(fields).toMatchObject({ zzSpecFavorite: true, isVisible: false });
    expect(columnValuesOf(fields, columns).at(-1)).toBe(1);
  });
});
