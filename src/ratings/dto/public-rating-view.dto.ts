import { OmitType } from '@nestjs/swagger';
import { PUBLIC_VIEW_HIDDEN_FIELDS } from '../public-view.policy';
import { AnimeRatingView, MangaRatingView } from './rating-view.dto';

/** Another user's visible anime entry (contract §18): the entry without its personal fields. */
export class PublicAnimeRatingView extends OmitType(AnimeRatingView, PUBLIC_VIEW_HIDDEN_FIELDS) {}

/** Another user's visible manga entry (contract §18): the entry without its personal fields. */
export class PublicMangaRatingView extends OmitType(MangaRatingView, PUBLIC_VIEW_HIDDEN_FIELDS) {}
