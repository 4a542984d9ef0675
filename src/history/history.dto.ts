import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { capitalized } from '../media-types/media-type';
import { RATING_STATUSES } from '../media-types/rating-status';
import type { MediaTypeDescriptor } from '../media-types';

export class StatusChangeView {
  @ApiProperty({
    enum: RATING_STATUSES,
    nullable: true,
    example: 'bookmark',
    description: 'null when the event created the entry',
  })
  from: string | null;

  @ApiProperty({ enum: RATING_STATUSES, example: 'ongoing' })
  to: string;
}

export class CountChangeView {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 3,
    description: 'null when the event created the entry',
  })
  from: number | null;

  @ApiProperty({ type: 'integer', example: 5 })
  to: number;
}

export class ScoreChangeView {
  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 0,
    description: 'public_rating * 10 + public_fraction; null when the event created the entry',
  })
  from: number | null;

  @ApiProperty({ type: 'integer', example: 85 })
  to: number;
}

/** An event as the history reads show it (contract §20), for one media type. */
export function historyEventViewFor(descriptor: MediaTypeDescriptor): Type<unknown> {
  class HistoryEventView {
    @ApiProperty({
      type: 'integer',
      example: 981,
      description: 'Unique in your history of this media type; larger for a later write',
    })
    id: number;

    @ApiProperty({ type: 'integer', example: 12 })
    title_id: number;

    @ApiProperty({ type: 'integer', nullable: true, example: 5114 })
    external_id: number | null;

    @ApiProperty({
      example: '2026-11-28T10:00:00.123Z',
      description: 'Commit time, UTC, milliseconds',
    })
    at: string;

    @ApiProperty({ enum: ['api', 'import', 'scrobble'], example: 'api' })
    source: string;

    @ApiProperty({
      type: 'string',
      nullable: true,
      example: 'ListSync',
      description:
        "api: the OAuth client's name (null for CLI or identity-provider tokens); import: null",
    })
    client: string | null;

    @ApiProperty({
      type: 'integer',
      nullable: true,
      example: 2,
      description: 'The viewing the event belongs to',
    })
    viewing: number | null;

    @ApiPropertyOptional({ type: StatusChangeView, description: 'Present when the status changed' })
    status?: StatusChangeView;

    @ApiPropertyOptional({ type: ScoreChangeView, description: 'Present when the score changed' })
    score?: ScoreChangeView;
  }
  for (const field of descriptor.history.progress) {
    ApiPropertyOptional({ type: CountChangeView, description: `Present when ${field} changed` })(
      HistoryEventView.prototype,
      field,
    );
  }
  Object.defineProperty(HistoryEventView, 'name', {
    value: `${capitalized(descriptor.name)}HistoryEventView`,
  });
  return HistoryEventView;
}

export class ViewingView {
  @ApiProperty({ type: 'integer', example: 2 })
  number: number;

  @ApiProperty({ example: '2026-11-01T00:00:00Z', description: 'UTC' })
  started_at: string;

  @ApiProperty({
    type: 'string',
    nullable: true,
    example: '2026-11-28T10:00:00.123Z',
    description: 'UTC; null while open',
  })
  finished_at: string | null;

  @ApiProperty({ enum: ['open', 'finished', 'abandoned'], example: 'finished' })
  state: string;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    example: 85,
    description: 'The score when the viewing closed; null when 0 or open',
  })
  score: number | null;

  @ApiProperty({
    type: 'integer',
    example: 64,
    description: 'The highest progress while it was open',
  })
  progress: number;
}
