import { EMBY_PARSER } from './emby.parser';
import { GENERIC_PARSER } from './generic.parser';
import { JELLYFIN_PARSER } from './jellyfin.parser';
import { KODI_PARSER } from './kodi.parser';
import { PLEX_PARSER } from './plex.parser';
import type { ScrobbleParser, ScrobblerKind } from './scrobble-parser';

/** One parser per kind: the compiler lists a kind without one. */
export const SCROBBLE_PARSERS: Record<ScrobblerKind, ScrobbleParser> = {
  jellyfin: JELLYFIN_PARSER,
  plex: PLEX_PARSER,
  emby: EMBY_PARSER,
  kodi: KODI_PARSER,
  generic: GENERIC_PARSER,
};

export * from './scrobble-parser';
