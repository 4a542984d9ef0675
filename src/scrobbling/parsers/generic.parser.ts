import {
  eventOf,
  idsOf,
  integerOf,
  member,
  NOT_WATCHED,
  objectOf,
  textOf,
  unreadable,
  type ScrobbleParser,
} from './scrobble-parser';

const GENERIC_IDS = { mal: 'mal', anilist: 'anilist', anidb: 'anidb', kitsu: 'kitsu' } as const;

/**
 * This service's own shape, for any program that can POST JSON (contract §21):
 * `{"event": "watched", "media_type": "anime", "ids": {…}, "title": "…", "season": N, "episode": N}`
 * or `{"event": "read", "media_type": "manga", "ids": {…}, "title": "…", "chapter": N, "volume": N}`.
 */
export const GENERIC_PARSER: ScrobbleParser = {
  kind: 'generic',
  multipartPart: null,
  form: false,
  parse(body) {
    const event = eventOf(body, 'event');
    if (event !== 'watched' && event !== 'read') return NOT_WATCHED;
    const expected = event === 'watched' ? 'anime' : 'manga';
    const mediaType = member(body, 'media_type') ?? expected;
    if (mediaType !== expected) {
      throw unreadable(`media_type must be "${expected}" for the event "${event}"`);
    }
    const manga = expected === 'manga';
    return {
      watched: true,
      mediaType: expected,
      user: null,
      otherAccount: false,
      series: textOf(member(body, 'title'), 'title'),
      season: manga ? null : integerOf(member(body, 'season'), 'season'),
      episode: integerOf(
        member(body, manga ? 'chapter' : 'episode'),
        manga ? 'chapter' : 'episode',
      ),
      volume: manga ? integerOf(member(body, 'volume'), 'volume') : null,
      ids: idsOf(objectOf(member(body, 'ids'), 'ids'), GENERIC_IDS),
    };
  },
};
