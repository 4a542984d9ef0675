import {
  booleanOf,
  eventOf,
  idsOf,
  integerOf,
  member,
  NOT_WATCHED,
  textOf,
  type ScrobbleParser,
} from './scrobble-parser';

/**
 * The plugin escapes the quotes of names for its templates (`Escape()` in DataObjectHelpers.cs), so
 * with "Send All Properties" a name's `"` arrives as `\"`: read back as the name it was.
 */
function nameOf(body: Record<string, unknown>, key: string): string | null {
  return textOf(member(body, key), key)?.replaceAll('\\"', '"') ?? null;
}

/**
 * The Jellyfin Webhook plugin's Generic destination (jellyfin/jellyfin-plugin-webhook,
 * DataObjectHelpers.cs): with "Send All Properties" its flat dictionary as JSON (by default as
 * text/plain), or the template of docs/scrobbling.md; the Generic Form sends the same members as
 * form fields. Its `Provider_*` ids are the item's: an episode's AniDB id is an episode id.
 */
export const JELLYFIN_PARSER: ScrobbleParser = {
  kind: 'jellyfin',
  multipartPart: null,
  form: true,
  parse(body) {
    const event = eventOf(body, 'NotificationType');
    const itemType = textOf(member(body, 'ItemType'), 'ItemType');
    const watched =
      (event === 'PlaybackStop' &&
        booleanOf(member(body, 'PlayedToCompletion'), 'PlayedToCompletion') === true) ||
      (event === 'UserDataSaved' &&
        booleanOf(member(body, 'Played'), 'Played') === true &&
        member(body, 'SaveReason') === 'TogglePlayed');
    if (!watched || (itemType !== 'Episode' && itemType !== 'Movie')) return NOT_WATCHED;
    const movie = itemType === 'Movie';
    const first = integerOf(member(body, 'EpisodeNumber'), 'EpisodeNumber');
    const last = integerOf(member(body, 'EpisodeNumberEnd'), 'EpisodeNumberEnd');
    return {
      watched: true,
      mediaType: 'anime',
      user: nameOf(body, 'NotificationUsername'),
      otherAccount: false,
      series: nameOf(body, movie ? 'Name' : 'SeriesName'),
      season: movie ? null : integerOf(member(body, 'SeasonNumber'), 'SeasonNumber'),
      episode: movie ? 1 : (last ?? first),
      volume: null,
      ids: idsOf(body, {
        mal: 'Provider_myanimelist',
        anilist: 'Provider_anilist',
        kitsu: 'Provider_kitsu',
        ...(movie ? { anidb: 'Provider_anidb' } : {}),
      }),
    };
  },
};
