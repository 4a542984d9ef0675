import {
  eventOf,
  idsOf,
  integerOf,
  member,
  NOT_WATCHED,
  numberOf,
  objectOf,
  textOf,
  type ScrobbleParser,
} from './scrobble-parser';

const KODI_IDS = { mal: 'mal', anilist: 'anilist', anidb: 'anidb', kitsu: 'kitsu' } as const;

/**
 * Kodi's HTTP Scrobbler add-on (Programie/KodiAddon-HttpScrobbler): JSON. Watched: `end`, or
 * `stop` at 80 % or more. Series ids are `tvShowUniqueIds` (contract §21, matching rule 1); the
 * item's own `uniqueIds` (a scraper's imdb, tmdb) are never read.
 */
export const KODI_PARSER: ScrobbleParser = {
  kind: 'kodi',
  multipartPart: null,
  form: false,
  parse(body) {
    const event = eventOf(body, 'event');
    const type = textOf(member(body, 'mediaType'), 'mediaType');
    const percent = numberOf(
      member(objectOf(member(body, 'progress'), 'progress'), 'percent'),
      'progress.percent',
    );
    const watched = event === 'end' || (event === 'stop' && percent !== null && percent >= 80);
    if (!watched || (type !== 'episode' && type !== 'movie')) return NOT_WATCHED;
    const movie = type === 'movie';
    return {
      watched: true,
      mediaType: 'anime',
      user: null,
      otherAccount: false,
      series: textOf(
        member(body, movie ? 'title' : 'tvShowTitle'),
        movie ? 'title' : 'tvShowTitle',
      ),
      season: movie ? null : integerOf(member(body, 'season'), 'season'),
      episode: movie ? 1 : integerOf(member(body, 'episode'), 'episode'),
      volume: null,
      ids: idsOf(objectOf(member(body, 'tvShowUniqueIds'), 'tvShowUniqueIds'), KODI_IDS),
    };
  },
};
