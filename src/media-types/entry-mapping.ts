import { rawBoolean, rawIsoSeconds } from '../database/raw-values';
import { ENTRY_COLUMNS, type EntryColumn, type EntryFields } from './entry-columns';
import type { MediaTypeDescriptor } from '.';

/** A field of a media type's entries: its API name and the column it is stored in. */
export interface EntryField {
  readonly name: string;
  readonly column: EntryColumn;
}

/**
 * The fields of a media type's entries in column order (the order of its views): the shared
 * columns under their own names, the `own` columns the descriptor names under its names.
 */
export function entryFieldsOfType(
  descriptor: Pick<MediaTypeDescriptor, 'name' | 'ownFields'>,
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): EntryField[] {
  const nameOf = new Map<string, string>();
  for (const [name, { column }] of Object.entries(descriptor.ownFields)) {
    if (!columns.some((c) => c.column === column && c.kind === 'own')) {
      throw new Error(`${descriptor.name}.${name}: "${column}" is not an own column of entries`);
    }
    nameOf.set(column, name);
  }
  const fields: EntryField[] = [];
  for (const column of columns) {
    const name = column.kind === 'shared' ? column.column : nameOf.get(column.column);
    if (name !== undefined) fields.push({ name, column });
  }
  return fields;
}

/** A read's row as values: the title's id, external_id and name, the columns, the two timestamps. */
export type RowValues = readonly unknown[];

/**
 * The function that makes a view (contract §7) from a row's values, with `hidden` fields left
 * out. It is compiled once per media type to one object literal: GET all makes 10,000 views, and
 * a loop over the fields is about three times slower. Only field names of the code go into it.
 */
export function compileRowToView<V>(
  fields: readonly EntryField[],
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
  hidden: readonly string[] = [],
): (values: RowValues) => V {
  const at = (column: EntryColumn) => 3 + columns.indexOf(column);
  const properties = ['id: v[0]', 'external_id: v[1]', 'title: v[2]'];
  for (const { name, column } of fields) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`not a field name: ${name}`);
    if (hidden.includes(name)) continue;
    properties.push(
      `${name}: ${column.type === 'boolean' ? `rawBoolean(v[${at(column)}])` : `v[${at(column)}]`}`,
    );
  }
  properties.push(
    `created_at: rawIsoSeconds(v[${3 + columns.length}])`,
    `updated_at: rawIsoSeconds(v[${4 + columns.length}])`,
  );
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  const compile = new Function(
    'rawBoolean',
    'rawIsoSeconds',
    `return (v) => ({ ${properties.join(', ')} });`,
  ) as (...helpers: [typeof rawBoolean, typeof rawIsoSeconds]) => (values: RowValues) => V;
  return compile(rawBoolean, rawIsoSeconds);
}

/** The stored fields of an entry from a row read by name (the columns are its keys). */
export function entryFieldsOfRow(
  row: Record<string, unknown>,
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): EntryFields {
  const fields: Record<string, unknown> = {};
  for (const { column, property, type } of columns) {
    const value = row[column];
    fields[property] = type === 'boolean' ? rawBoolean(value as number | boolean) : value;
  }
  return fields as unknown as EntryFields;
}

/** The values of an entry's fields in column order, as a statement writes them (booleans 0/1). */
export function columnValuesOf(
  fields: EntryFields,
  columns: readonly EntryColumn[] = ENTRY_COLUMNS,
): (string | number | null)[] {
  return columns.map(({ property }) => {
    const value = (fields as Record<string, string | number | boolean | null>)[property];
    return typeof value === 'boolean' ? (value ? 1 : 0) : value;
  });
}
