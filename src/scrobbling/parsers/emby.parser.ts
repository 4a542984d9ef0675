import {
  booleanOf,
  eventOf,
  idsOf,
  integerOf,
  member,
  NOT_WATCHED,
  objectOf,
  textOf,
  type ScrobbleParser,
} from './scrobble-parser';

/**
 * Emby's webhooks (Emby Premiere; Notifications → Webhooks): JSON, or multipart with the JSON in
 * `data`. Watched: `item.markplayed`, or `playback.stop` played to completion.
 */
export const EMBY_PARSER: ScrobbleParser = {
  kind: 'emby',
  multipartPart: 'data',
  form: false,
  parse(body) {
    const event = eventOf(body, 'Event');
    const item = objectOf(member(body, 'Item'), 'Item');
    const playback = objectOf(member(body, 'PlaybackInfo'), 'PlaybackInfo');
    const user = objectOf(member(body, 'User'), 'User');
    const type = textOf(member(item, 'Type'), 'Item.Type');
    const watched =
      event === 'item.markplayed' ||
      (event === 'playback.stop' &&
        booleanOf(member(playback, 'PlayedToCompletion'), 'PlaybackInfo.PlayedToCompletion') ===
          true);
    if (!watched || (type !== 'Episode' && type !== 'Movie')) return NOT_WATCHED;
    const movie = type === 'Movie';
    return {
      watched: true,
      mediaType: 'anime',
      user: textOf(member(user, 'Name'), 'User.Name'),
      otherAccount: false,
      series: textOf(
        member(item, movie ? 'Name' : 'SeriesName'),
        movie ? 'Item.Name' : 'Item.SeriesName',
      ),
      season: movie ? null : integerOf(member(item, 'ParentIndexNumber'), 'Item.ParentIndexNumber'),
      episode: movie ? 1 : integerOf(member(item, 'IndexNumber'), 'Item.IndexNumber'),
      volume: null,
      ids: idsOf(objectOf(member(item, 'ProviderIds'), 'Item.ProviderIds'), {
        mal: 'MyAnimeList',
        anilist: 'AniList',
        kitsu: 'Kitsu',
        ...(movie ? { anidb: 'AniDB' } : {}),
      }),
    };
  },
};
