import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { ApiValidationPipe } from '../../common/api-validation.pipe';
import type { ProblemException } from '../../common/problem';
import { DESCRIPTOR_LIST } from '../../media-types';
import { capitalized } from '../../media-types/media-type';
import { ENTRY_COLUMNS, ruleOf } from '../../media-types/entry-columns';
import { entryFieldsOfType } from '../../media-types/entry-mapping';
import { PUBLIC_VIEW_HIDDEN_FIELDS } from '../../media-types/public-view.policy';
import { STATISTICS_VIEWS } from '../../profile/profile.dto';
import { PUBLIC_VIEWS, PUT_DTOS, VIEWS } from './entry-classes';

// The classes of a media type are made from its descriptor and ENTRY_COLUMNS: a field added to
// either is in the PUT body, the views and their schemas, with its rule, and nothing else is.

/** A PUT body's fields that are not stored in the entry: how the request is read. */
const PUT_REQUEST_FIELDS = ['use_external_id', 'touch'];
/** A view's fields that are not entry columns: the title's, and the entry's timestamps. */
const VIEW_TITLE_FIELDS = ['id', 'external_id', 'title'];
const VIEW_TIMESTAMPS = ['created_at', 'updated_at'];

/** The properties @nestjs/swagger documents of a class, in their order. */
function documented(type: abstract new () => unknown): string[] {
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, type.prototype) ??
    []) as string[];
  return [...new Set(names.map((name) => name.replace(/^:/, '')))];
}

/** The properties class-validator validates of a class (the ones a whitelisting pipe lets in). */
function validated(type: abstract new () => unknown): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  return [...new Set(metadata.map(({ propertyName }) => propertyName))].sort();
}

describe.each(DESCRIPTOR_LIST.map((descriptor) => [descriptor.name, descriptor] as const))(
  'the %s classes',
  (name, descriptor) => {
    const fields = entryFieldsOfType(descriptor);
    const names = fields.map((field) => field.name);
    const viewFields = [...VIEW_TITLE_FIELDS, ...names, ...VIEW_TIMESTAMPS];

    it('are named as the OpenAPI schemas and generated clients know them', () => {
      const Name = capitalized(name);
      expect(PUT_DTOS[name].name).toBe(`Put${Name}RatingDto`);
      expect(VIEWS[name].name).toBe(`${Name}RatingView`);
      expect(PUBLIC_VIEWS[name].name).toBe(`Public${Name}RatingView`);
      expect(STATISTICS_VIEWS[name].name).toBe(`${Name}Statistics`);
    });

    it('puts: the PUT body validates and documents the entry fields and the request fields', () => {
      const expected = [...names, ...PUT_REQUEST_FIELDS].sort();
      expect(validated(PUT_DTOS[name])).toEqual(expected);
      expect([...documented(PUT_DTOS[name])].sort()).toEqual(expected);
    });

    it('reads: the view documents the title, the entry fields in column order, the timestamps', () => {
      expect(documented(VIEWS[name])).toEqual(viewFields);
    });

    it("shows others: the public view is the view without the owner's fields", () => {
      const hidden: readonly string[] = PUBLIC_VIEW_HIDDEN_FIELDS;
      expect(documented(PUBLIC_VIEWS[name])).toEqual(
        viewFields.filter((field) => !hidden.includes(field)),
      );
    });

    it("validates each field by its column's rule", async () => {
      const pipe = new ApiValidationPipe({ expectedType: PUT_DTOS[name] });
      const metadata = { type: 'body' as const, metatype: PUT_DTOS[name] };
      for (const { name: field, column } of fields) {
        const rule = ruleOf(column);
        const [valid, invalid] = {
          oneOf: () => [rule.kind === 'oneOf' && rule.values[0], 'nonsense'],
          boolean: () => [true, 'true'],
          int: () => [rule.kind === 'int' && rule.max, rule.kind === 'int' && rule.max + 1],
          count: () => [3, -1],
          date: () => ['2024-02-29', '2023-02-29'],
          text: () => ['x', 'x'.repeat(rule.kind === 'text' ? rule.maxLength + 1 : 0)],
        }[rule.kind]();
        const base = field === 'status' ? {} : { status: 'ongoing' };
        await expect(pipe.transform({ ...base, [field]: valid }, metadata)).resolves.toBeDefined();
        const errors = await pipe
          .transform({ ...base, [field]: invalid }, metadata)
          .then(() => [])
          .catch((error: ProblemException) => error.problem.errors ?? []);
        expect(errors.map((error: { field: string }) => error.field)).toEqual([field]);
      }
    });
  },
);

it('every column of the list is some media type field', () => {
  const used = new Set(
    DESCRIPTOR_LIST.flatMap((descriptor) => entryFieldsOfType(descriptor)).map(
      ({ column }) => column.column,
    ),
  );
  expect(ENTRY_COLUMNS.filter(({ column }) => !used.has(column))).toEqual([]);
});
