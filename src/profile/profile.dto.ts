import type { Type } from '@nestjs/common';
import { ApiProperty, type ApiPropertyOptions } from '@nestjs/swagger';
import { byMediaType, type MediaTypeDescriptor, type StatisticsOf } from '../media-types';
import { capitalized, MEDIA_TYPES, type MediaType } from '../media-types/media-type';

/** A class with a name of its own (the OpenAPI schema's) and the given documented properties. */
function documentedClass(name: string, properties: Record<string, ApiPropertyOptions>): Type {
  const type = Object.defineProperty(class {}, 'name', { value: name });
  for (const [property, options] of Object.entries(properties)) {
    ApiProperty(options)(type.prototype, property);
  }
  return type;
}

/** `AnimeStatistics`: a media type's profile statistics (contract §8), from its descriptor. */
function statisticsClass({ name, statistics }: MediaTypeDescriptor): Type {
  const [ongoing, completed, onHold, dropped, bookmark, average] = statistics.examples;
  const integer = (example: number, description?: string): ApiPropertyOptions => ({
    type: 'integer',
    example,
    ...(description ? { description } : {}),
  });
  return documentedClass(`${capitalized(name)}Statistics`, {
    [statistics.ongoing]: integer(ongoing, 'Entries with status ongoing'),
    completed: integer(completed),
    on_hold: integer(onHold),
    dropped: integer(dropped),
    bookmark: integer(bookmark, `Planned to ${statistics.verb}`),
    average: {
      ...integer(
        average,
        'Mean of public_rating*10 + public_fraction over entries scoring above 0, rounded half up; 0 when none',
      ),
      minimum: 0,
      maximum: 100,
    },
    ...Object.fromEntries(
      Object.entries(statistics.sums).map(([sum, { example, description }]) => [
        sum,
        integer(example, description),
      ]),
    ),
  });
}

export const STATISTICS_VIEWS = byMediaType(statisticsClass);

/** One property per media type. */
export type ProfileStatistics = { [M in MediaType]: StatisticsOf<M> };

export const ProfileStatistics = documentedClass(
  'ProfileStatistics',
  Object.fromEntries(MEDIA_TYPES.map((name) => [name, { type: STATISTICS_VIEWS[name] }])),
);

export class ProfileView {
  @ApiProperty({ type: 'integer', example: 1 }) id: number;
  @ApiProperty({ example: 'alice' }) name: string;
  @ApiProperty({ example: '2024-01-02T10:00:00Z', description: 'Registration time, UTC' })
  joined_at: string;
  @ApiProperty({ type: ProfileStatistics }) statistics: ProfileStatistics;
}
