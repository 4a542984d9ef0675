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
 * `stop` at 80 % or more. A show's ids are in `tvShowUniqueIds`; a movie's in `uniqueIds`.
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
    const idsMember = movie ? 'uniqueIds' : 'tvShowUniqueIds';
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
      ids: idsOf(objectOf(member(body, idsMember), idsMember), KODI_IDS),
    };
  },
};
