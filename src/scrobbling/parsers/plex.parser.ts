import {
  booleanOf,
  eventOf,
  integerOf,
  member,
  NOT_WATCHED,
  objectOf,
  textOf,
  type PayloadIds,
  type ScrobbleParser,
} from './scrobble-parser';

/** HAMA's AniDB series (`…hama://anidb-AID/…`); its `tvdb-` forms are not anime ids. */
const HAMA = /^com\.plexapp\.agents\.hama:\/\/anidb\d*-(\d{1,10})(?:[/?]|$)/;
const MAL_AGENT = /^net\.fribbtastic\.coding\.plex\.myanimelist:\/\/(\d{1,10})(?:[/?]|$)/;

/**
 * Plex's webhooks (support.plex.tv "Webhooks"): JSON, or multipart with the JSON in `payload`.
 * Watched: `media.scrobble` (past 90 %) of an episode or a movie.
 */
export const PLEX_PARSER: ScrobbleParser = {
  kind: 'plex',
  multipartPart: 'payload',
  form: false,
  parse(body) {
    const event = eventOf(body, 'event');
    const metadata = objectOf(member(body, 'Metadata'), 'Metadata');
    const account = objectOf(member(body, 'Account'), 'Account');
    const type = textOf(member(metadata, 'type'), 'Metadata.type');
    if (event !== 'media.scrobble' || (type !== 'episode' && type !== 'movie')) return NOT_WATCHED;
    const movie = type === 'movie';
    const ids: PayloadIds = {};
    for (const key of ['guid', 'grandparentGuid', 'parentGuid']) {
      const guid = member(metadata, key);
      if (typeof guid !== 'string') continue;
      const hama = HAMA.exec(guid);
      if (hama && ids.anidb === undefined) ids.anidb = Number(hama[1]);
      const mal = MAL_AGENT.exec(guid);
      if (mal && ids.mal === undefined) ids.mal = Number(mal[1]);
    }
    return {
      watched: true,
      mediaType: 'anime',
      user: textOf(member(account, 'title'), 'Account.title'),
      otherAccount: booleanOf(member(body, 'user'), 'user') === false,
      series: textOf(
        member(metadata, movie ? 'title' : 'grandparentTitle'),
        'Metadata.grandparentTitle',
      ),
      season: movie ? null : integerOf(member(metadata, 'parentIndex'), 'Metadata.parentIndex'),
      episode: movie ? 1 : integerOf(member(metadata, 'index'), 'Metadata.index'),
      volume: null,
      ids,
    };
  },
};
