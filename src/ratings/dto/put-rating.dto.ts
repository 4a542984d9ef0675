import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { RATING_STATUSES, RatingStatus } from '../../media-types/rating-status';
import {
  Count,
  IntRange,
  IsCalendarDateOrNull,
  IsTextUpTo,
  OptionalBoolean,
} from './validation-decorators';

export const MAX_NOTES_LENGTH = 10000;

/** The fields anime and manga entries share (the write shape of contract §6). */
export abstract class PutRatingDto {
  @ApiProperty({ enum: RATING_STATUSES, description: 'Required on create and on update.' })
  @IsDefined({ message: 'is required' })
  @IsIn(RATING_STATUSES, { message: `must be one of: ${RATING_STATUSES.join(', ')}` })
  readonly status: RatingStatus;

  @OptionalBoolean(
    "When true, the `{id}` in the path is the title's `external_id` (third-party list id).",
  )
  readonly use_external_id?: boolean;

  @OptionalBoolean('true: visible to others; false: private. Default true.')
  readonly is_visible?: boolean;

  @IntRange(0, 10, 'Public score. public_rating + public_fraction/10 is at most 10.0.')
  readonly public_rating?: number;

  @IntRange(0, 9, 'Decimal part of the public score.')
  readonly public_fraction?: number;

  @IntRange(0, 100, "Personal score; does not affect the title's overall rating.")
  readonly personal_rating?: number;

  @IsCalendarDateOrNull('Date viewing started; null clears it.')
  readonly start_date?: string | null;

  @IsCalendarDateOrNull('Date viewing ended, not before start_date; null clears it.')
  readonly end_date?: string | null;

  @IsTextUpTo(MAX_NOTES_LENGTH, 'User notes.')
  readonly notes?: string;

  @IntRange(0, 3, '0 = no priority … 3 = highest.')
  readonly priority?: number;

  @OptionalBoolean(
    "When true, the entry's updated_at is set to now (an update leaves it unchanged otherwise).",
  )
  readonly touch?: boolean;
}

export class PutAnimeRatingDto extends PutRatingDto {
  @Count("Episodes watched: at most the title's episode count when known, else at most 100000.")
  readonly episodes_watched?: number;

  @OptionalBoolean('Currently rewatching.')
  readonly is_rewatching?: boolean;

  @IntRange(0, 1000, 'Number of rewatches.')
  readonly times_rewatched?: number;

  @IntRange(0, 5, '0 = no interest … 5 = very high interest.')
  readonly rewatch_desire?: number;
}

export class PutMangaRatingDto extends PutRatingDto {
  @Count("Chapters read: at most the title's chapter count when known, else at most 100000.")
  readonly chapters_read?: number;

  @Count("Volumes read: at most the title's volume count when known, else at most 10000.")
  readonly volumes_read?: number;

  @OptionalBoolean('Currently rereading.')
  readonly is_rereading?: boolean;

  @IntRange(0, 1000, 'Number of rereads.')
  readonly times_reread?: number;

  @IntRange(0, 5, '0 = no interest … 5 = very high interest.')
  readonly reread_desire?: number;
}
