import { ApiProperty } from '@nestjs/swagger';
import type { MediaType } from '../common/media-type';

/*
 * The examples are docs/api.md's profile: every anime title has 24-minute episodes (120 × 24), the
 * manga minutes follow 8 × 200 + 72 × 20, and scores of 85 and 70 average to 78.
 */
export class AnimeStatistics {
  @ApiProperty({ type: 'integer', example: 1, description: 'Entries with status ongoing' })
  watching: number;
  @ApiProperty({ type: 'integer', example: 3 }) completed: number;
  @ApiProperty({ type: 'integer', example: 0 }) on_hold: number;
  @ApiProperty({ type: 'integer', example: 1 }) dropped: number;
  @ApiProperty({ type: 'integer', example: 2, description: 'Planned to watch' }) bookmark: number;
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: 100,
    example: 78,
    description:
      'Mean of public_rating*10 + public_fraction over entries scoring above 0, rounded half up; 0 when none',
  })
  average: number;
  @ApiProperty({ type: 'integer', example: 120, description: 'Sum of episodes_watched' })
  episodes: number;
  @ApiProperty({ type: 'integer', example: 1, description: 'Sum of times_rewatched' })
  rewatched: number;
  @ApiProperty({
    type: 'integer',
    example: 2880,
    description: "Sum of episodes_watched × the title's episode_minutes (24 when unknown)",
  })
  media_minutes: number;
}

export class MangaStatistics {
  @ApiProperty({ type: 'integer', example: 1, description: 'Entries with status ongoing' })
  reading: number;
  @ApiProperty({ type: 'integer', example: 1 }) completed: number;
  @ApiProperty({ type: 'integer', example: 0 }) on_hold: number;
  @ApiProperty({ type: 'integer', example: 0 }) dropped: number;
  @ApiProperty({ type: 'integer', example: 0, description: 'Planned to read' }) bookmark: number;
  @ApiProperty({ type: 'integer', minimum: 0, maximum: 100, example: 80 }) average: number;
  @ApiProperty({ type: 'integer', example: 200, description: 'Sum of chapters_read' })
  chapters: number;
  @ApiProperty({ type: 'integer', example: 20, description: 'Sum of volumes_read' })
  volumes: number;
  @ApiProperty({ type: 'integer', example: 0, description: 'Sum of times_reread' }) reread: number;
  @ApiProperty({ type: 'integer', example: 3040, description: '8 × chapters + 72 × volumes' })
  media_minutes: number;
}

/** One property per media type: a new type's statistics class is missing here until added. */
export class ProfileStatistics implements Record<MediaType, object> {
  @ApiProperty() anime: AnimeStatistics;
  @ApiProperty() manga: MangaStatistics;
}

export class ProfileView {
  @ApiProperty({ type: 'integer', example: 1 }) id: number;
  @ApiProperty({ example: 'alice' }) name: string;
  @ApiProperty({ example: '2024-01-02T10:00:00Z', description: 'Registration time, UTC' })
  joined_at: string;
  @ApiProperty() statistics: ProfileStatistics;
}
