import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min, ValidateIf } from 'class-validator';
import { IsOmittable, IsTextOfLength, OptionalBoolean } from '../ratings/dto/validation-decorators';
import type { MediaType } from '../media-types/media-type';
import { SCROBBLER_KINDS, type ScrobblerKind } from './parsers';

/** POST /v1/my/scrobblers (contract §21). */
export class CreateScrobblerDto {
  @ApiProperty({ enum: SCROBBLER_KINDS, example: 'jellyfin' })
  @IsIn(SCROBBLER_KINDS, { message: `must be one of ${SCROBBLER_KINDS.join(', ')}` })
  readonly kind: ScrobblerKind;

  @ApiProperty({ minLength: 1, maxLength: 64, example: 'Living room Jellyfin' })
  @IsTextOfLength(1, 64)
  readonly name: string;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    minLength: 1,
    maxLength: 128,
    example: 'alice',
    description:
      "Only this server account's payloads count (the others are `ignored`); not for kodi or generic, whose payloads name no user. Null is the same as absent",
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null)
  @IsTextOfLength(1, 128)
  readonly server_user?: string | null;

  @OptionalBoolean(
    'Episode 1 of a completed title starts a rewatch (default false: an autoplayed first episode must not reset a finished show)',
  )
  readonly rewatches?: boolean;

  @OptionalBoolean('Entries this scrobbler creates are visible to others (default false)')
  readonly visible?: boolean;
}

/** The members every answer about a scrobbler has. */
class ScrobblerFields {
  @ApiProperty({ example: 'q3Xv9mB2tK7wR1cY' })
  id: string;

  @ApiProperty({ enum: SCROBBLER_KINDS, example: 'jellyfin' })
  kind: ScrobblerKind;

  @ApiProperty({ example: 'Living room Jellyfin' })
  name: string;

  @ApiProperty({ type: String, nullable: true, example: 'alice' })
  server_user: string | null;

  @ApiProperty({ example: false })
  rewatches: boolean;

  @ApiProperty({ example: false })
  visible: boolean;

  @ApiProperty({ example: '2026-11-28T10:00:00Z' })
  created_at: string;
}

export class ScrobblerView extends ScrobblerFields {
  @ApiProperty({ type: String, nullable: true, example: '2026-11-28T21:14:05Z' })
  last_used_at: string | null;
}

/** The answer of POST (and of a new secret): the URL, shown only then. */
export class CreatedScrobblerView extends ScrobblerFields {
  @ApiProperty({
    example: 'https://ratings.example/scrobble/0sZ8b3mXc1Qe7hVw2Lr9tYk4NpA6dGfJ',
    description: 'The address to give the media server; its secret is shown only in this answer',
  })
  url: string;
}

/** PUT /v1/my/scrobble-mappings. */
export class PutScrobbleMappingDto {
  @ApiProperty({ minLength: 1, maxLength: 500, example: 'Shingeki no Kyojin' })
  @IsTextOfLength(1, 500)
  readonly series: string;

  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    minimum: 0,
    default: null,
    example: 2,
    description: 'Null or absent: the payloads that name no season',
  })
  @ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null)
  @IsInt({ message: 'must be a non-negative integer or null' })
  @Min(0, { message: 'must be a non-negative integer or null' })
  @Max(2 ** 31 - 1, { message: 'must be a non-negative integer or null' })
  readonly season?: number | null;

  @ApiPropertyOptional({ enum: ['anime', 'manga'], default: 'anime' })
  @IsOmittable()
  @IsIn(['anime', 'manga'], { message: 'must be anime or manga' })
  readonly media_type?: 'anime' | 'manga';

  @ApiProperty({ type: 'integer', minimum: 1, example: 25 })
  @IsInt({ message: 'must be a positive integer' })
  @Min(1, { message: 'must be a positive integer' })
  @Max(2 ** 31 - 1, { message: 'must be a positive integer' })
  readonly title_id: number;

  @ApiPropertyOptional({ type: 'integer', minimum: -5000, maximum: 5000, default: 0, example: -25 })
  @IsOmittable()
  @IsInt({ message: 'must be an integer from -5000 to 5000' })
  @Min(-5000, { message: 'must be an integer from -5000 to 5000' })
  @Max(5000, { message: 'must be an integer from -5000 to 5000' })
  readonly episode_offset?: number;
}

export class ScrobbleMappingView {
  @ApiProperty({ example: 'Shingeki no Kyojin' })
  series: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  season: number | null;

  @ApiProperty({ enum: ['anime', 'manga'], example: 'anime' })
  media_type: MediaType;

  @ApiProperty({ example: 25 })
  title_id: number;

  @ApiProperty({ example: -25 })
  episode_offset: number;
}

export class UnmatchedScrobbleView {
  @ApiProperty({ enum: ['anime', 'manga'], example: 'anime' })
  media_type: MediaType;

  @ApiProperty({ example: 'Shingeki no Kyojin' })
  series: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 2 })
  season: number | null;

  @ApiProperty({ example: { anilist: 20958 }, description: 'The ids the payloads named' })
  ids: Record<string, number>;

  @ApiProperty({ type: [Number], example: [1, 2] })
  episodes: number[];

  @ApiProperty({ example: 3 })
  count: number;

  @ApiProperty({ example: '2026-11-28T21:14:05Z' })
  last_at: string;
}

export class ScrobbleOutcomeView {
  @ApiProperty({
    enum: ['created', 'updated', 'unchanged', 'ignored', 'duplicate', 'unmatched', 'not_watched'],
    example: 'updated',
  })
  outcome: string;

  @ApiProperty({ type: 'integer', nullable: true, example: 12 })
  title_id: number | null;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 5,
    description: "The entry's value after the request (manga payloads: `chapters_read`)",
  })
  episodes_watched?: number | null;
}
