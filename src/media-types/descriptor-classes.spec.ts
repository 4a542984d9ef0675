import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';
import { entryFieldsOfType } from './entry-mapping';
import { PUBLIC_VIEW_HIDDEN_FIELDS } from '../ratings/public-view.policy';
import { DESCRIPTOR_LIST } from '.';

// The DTO and view classes of a media type are written by hand (their decorators carry the rules
// and the OpenAPI text), but their fields are the descriptor's: a field added to the descriptor
// (or to ENTRY_COLUMNS) and not to a class, or to a class and not to the descriptor, fails here.

/** A PUT body's fields that are not stored in the entry: how the request is read. */
const PUT_REQUEST_FIELDS = ['use_external_id', 'touch'];
/** A view's fields that are not entry columns: the title's, and the entry's timestamps. */
const VIEW_TITLE_FIELDS = ['id', 'external_id', 'title'];
const VIEW_TIMESTAMPS = ['created_at', 'updated_at'];

/** The properties @nestjs/swagger documents of a class, inherited ones too. */
function documented(type: abstract new () => unknown): string[] {
  const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, type.prototype) ??
    []) as string[];
  return [...new Set(names.map((name) => name.replace(/^:/, '')))].sort();
}

/** The properties class-validator validates of a class (the ones a whitelisting pipe lets in). */
function validated(type: abstract new () => unknown): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  return [...new Set(metadata.map(({ propertyName }) => propertyName))].sort();
}

describe.each(DESCRIPTOR_LIST.map((descriptor) => [descriptor.name, descriptor] as const))(
  'the %s descriptor and its classes',
  (_name, descriptor) => {
    const fields = entryFieldsOfType(descriptor).map(({ name }) => name);
    const viewFields = [...VIEW_TITLE_FIELDS, ...fields, ...VIEW_TIMESTAMPS].sort();

    it('puts: the PUT body validates and documents the entry fields and the request fields', () => {
      const expected = [...fields, ...PUT_REQUEST_FIELDS].sort();
      expect(validated(descriptor.putDto)).toEqual(expected);
      expect(documented(descriptor.putDto)).toEqual(expected);
    });

    it('reads: the view documents the title, the entry fields and the timestamps', () => {
      expect(documented(descriptor.view)).toEqual(viewFields);
    });

    it("shows others: the public view is the view without the owner's fields", () => {
      const hidden: readonly string[] = PUBLIC_VIEW_HIDDEN_FIELDS;
      expect(documented(descriptor.publicView)).toEqual(
        viewFields.filter((name) => !hidden.includes(name)),
      );
    });
  },
);
