import { ApiProperty } from '@nestjs/swagger';
import { RATING_STATUSES, RatingStatus } from '../../media-types/rating-status';

/** An entry as read (contract §7): fields shared by anime and manga. */
export abstract class RatingView {
  @ApiProperty({ type: 'integer', description: "The title's internal id", example: 12 })
  id: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'Third-party list id',
    example: 5114,
  })
  external_id: number | null;

  @ApiProperty({ example: 'Fullmetal Alchemist: Brotherhood' })
  title: string;

  @ApiProperty({ enum: RATING_STATUSES })
  status: RatingStatus;

  @ApiProperty()
  is_visible: boolean;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 10 })
  public_rating: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 9 })
  public_fraction: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100 })
  personal_rating: number;

  @ApiProperty({ type: 'string', format: 'date', nullable: true, example: '2024-01-02' })
  start_date: string | null;

  @ApiProperty({ type: 'string', format: 'date', nullable: true, example: null })
  end_date: string | null;

  @ApiProperty()
  notes: string;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 3 })
  priority: number;

  @ApiProperty({ example: '2024-01-02T10:00:00Z', description: 'UTC, to the second' })
  created_at: string;

  @ApiProperty({ example: '2024-01-03T08:30:00Z', description: 'UTC, to the second' })
  updated_at: string;
}

export class AnimeRatingView extends RatingView {
  @ApiProperty({ type: 'integer' })
  episodes_watched: number;

  @ApiProperty()
  is_rewatching: boolean;

  @ApiProperty({ type: 'integer' })
  times_rewatched: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 5 })
  rewatch_desire: number;
}

export class MangaRatingView extends RatingView {
  @ApiProperty({ type: 'integer' })
  chapters_read: number;

  @ApiProperty({ type: 'integer' })
  volumes_read: number;

  @ApiProperty()
  is_rereading: boolean;

  @ApiProperty({ type: 'integer' })
  times_reread: number;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: 5 })
  reread_desire: number;
}

export class SuccessView {
  @ApiProperty({ example: true })
  success: true;
}
