import { applyDecorators, type Type } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions, OmitType } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { assertNever } from '../../common/assert-never';
import {
  ruleOf,
  type EntryValues,
  type FieldRule,
  type SharedColumnName,
} from '../../media-types/entry-columns';
import { entryFieldsOfType } from '../../media-types/entry-mapping';
import { capitalized, type MediaType } from '../../media-types/media-type';
import {
  byMediaType,
  type MediaTypeDescriptor,
  type PublicRatingViewOf,
  type RatingViewOf,
} from '../../media-types';
import type { RatingStatus } from '../../media-types/rating-status';
import { PUBLIC_VIEW_HIDDEN_FIELDS } from '../../media-types/public-view.policy';
import {
  Count,
  IntRange,
  IsCalendarDateOrNull,
  IsTextUpTo,
  OptionalBoolean,
} from './validation-decorators';

/*
 * The classes of each media type's PUT body and views, made from its descriptor and ENTRY_COLUMNS
 * when this module loads: their class-validator rules and OpenAPI schemas (and so the generated
 * clients' types) follow from the column list, with nothing to write per media type.
 */

/** A PUT body as the write path reads it: the shared fields by name, the type's own by lookup. */
export type PutRatingDto = Readonly<
  Partial<Pick<EntryValues, SharedColumnName>> & {
    status: RatingStatus;
    /** When true, the `{id}` in the path is the title's `external_id`. */
    use_external_id?: boolean;
    /** When true, the entry's updated_at is set to now. */
    touch?: boolean;
  }
>;

/** A class with a name of its own (the OpenAPI schema's), empty or extending `base`. */
function namedClass(name: string, base?: Type<object>): Type<unknown> {
  const type = base ? class extends base {} : class {};
  return Object.defineProperty(type, 'name', { value: name });
}

function withProperties(
  type: Type<unknown>,
  properties: readonly [string, PropertyDecorator][],
): Type<unknown> {
  for (const [name, decorator] of properties) decorator(type.prototype as object, name);
  return type;
}

/** A field's validation in a PUT body, with its OpenAPI schema. */
function putRule(rule: FieldRule, description: string): PropertyDecorator {
  switch (rule.kind) {
    case 'oneOf':
      return applyDecorators(
        ApiProperty({ enum: rule.values, description }),
        IsDefined({ message: 'is required' }),
        IsIn(rule.values, { message: `must be one of: ${rule.values.join(', ')}` }),
      );
    case 'boolean':
      return OptionalBoolean(description);
    case 'int':
      return IntRange(rule.min, rule.max, description);
    case 'count':
      return Count(description);
    case 'date':
      return IsCalendarDateOrNull(description);
    case 'text':
      return IsTextUpTo(rule.maxLength, description);
    default:
      return assertNever(rule, 'field rule');
  }
}

/** A field's OpenAPI schema in a view. */
function viewSchema(rule: FieldRule): ApiPropertyOptions {
  switch (rule.kind) {
    case 'oneOf':
      return { enum: rule.values };
    case 'boolean':
      return { type: 'boolean' };
    case 'int':
      return { type: 'integer', minimum: rule.min, maximum: rule.max };
    case 'count':
      return { type: 'integer', minimum: 0 };
    case 'date':
      return { type: 'string', format: 'date', nullable: true, example: '2024-01-02' };
    case 'text':
      return { type: 'string' };
    default:
      return assertNever(rule, 'field rule');
  }
}

/** The descriptor's fields with what the API says of each. */
function documentedFields(descriptor: MediaTypeDescriptor) {
  return entryFieldsOfType(descriptor).map(({ name, column }) => ({
    name,
    rule: ruleOf(column),
    example: column.example,
    description:
      column.kind === 'own' ? descriptor.ownFields[name].description : (column.description ?? ''),
  }));
}

/** `PutAnimeRatingDto`: the PUT body (contract §6). */
export function putDtoClass(descriptor: MediaTypeDescriptor): Type<PutRatingDto> {
  const [status, ...fields] = documentedFields(descriptor).map(
    ({ name, rule, description }) =>
      [name, putRule(rule, description)] as [string, PropertyDecorator],
  );
  return withProperties(namedClass(`Put${capitalized(descriptor.name)}RatingDto`), [
    status,
    [
      'use_external_id',
      OptionalBoolean(
        "When true, the `{id}` in the path is the title's `external_id` (third-party list id).",
      ),
    ],
    ...fields,
    [
      'touch',
      OptionalBoolean(
        "When true, the entry's updated_at is set to now (an update leaves it unchanged otherwise).",
      ),
    ],
  ]) as Type<PutRatingDto>;
}

/** `AnimeRatingView`: an entry as read (contract §7). */
export function viewClass<M extends MediaType>(
  descriptor: MediaTypeDescriptor<string>,
): Type<RatingViewOf<M>> {
  const timestamp = (example: string) =>
    ApiProperty({ type: 'string', example, description: 'UTC, to the second' });
  return withProperties(namedClass(`${capitalized(descriptor.name)}RatingView`), [
    ['id', ApiProperty({ type: 'integer', description: "The title's internal id", example: 12 })],
    [
      'external_id',
      ApiProperty({
        type: 'integer',
        nullable: true,
        description: 'Third-party list id',
        example: 5114,
      }),
    ],
    ['title', ApiProperty({ type: 'string', example: 'Fullmetal Alchemist: Brotherhood' })],
    ...documentedFields(descriptor).map(
      ({ name, rule, example }) =>
        [
          name,
          ApiProperty({ ...viewSchema(rule), ...(example === undefined ? {} : { example }) }),
        ] as [string, PropertyDecorator],
    ),
    ['created_at', timestamp('2024-01-02T10:00:00Z')],
    ['updated_at', timestamp('2024-01-03T08:30:00Z')],
  ]) as Type<RatingViewOf<M>>;
}

export const PUT_DTOS = byMediaType(putDtoClass);

export const VIEWS = byMediaType(viewClass) as { [M in MediaType]: Type<RatingViewOf<M>> };

/** `PublicAnimeRatingView`: another user's visible entry (contract §18), without the owner's fields. */
export const PUBLIC_VIEWS = byMediaType(({ name }) =>
  namedClass(
    `Public${capitalized(name)}RatingView`,
    OmitType(
      VIEWS[name] as Type<RatingViewOf<MediaType>>,
      PUBLIC_VIEW_HIDDEN_FIELDS,
    ) as Type<object>,
  ),
) as { [M in MediaType]: Type<PublicRatingViewOf<M>> };
