import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import type { MediaType } from '../media-types/media-type';
import { toIsoSeconds } from '../common/timestamps';
import type { EventView, ViewingView } from '../history/history.service';
import { HistoryService } from '../history/history.service';
import { GrantsService } from '../oauth/grants.service';
import { ProfileStatisticsService } from '../profile/profile-statistics.service';
import type { ProfileView } from '../profile/profile.dto';
import { DESCRIPTOR_LIST } from '../media-types';
import { RatingsService, RatingViewOf } from '../ratings/ratings.service';
import type {
  ScrobbleMappingView,
  ScrobblerView,
  UnmatchedScrobbleView,
} from '../scrobbling/scrobblers.dto';
import { ScrobblersService } from '../scrobbling/scrobblers.service';
import { ScrobbleLedger } from '../scrobbling/scrobble-ledger';
import { NamedUsers } from './named-user';

/** `users export`: everything stored about a user, as one JSON document. */
export type UserExport = {
  user: {
    id: number;
    name: string;
    joined_at: string;
    /** The identity provider's pairs (`iss`, `sub`) that sign in as this user. */
    identity_provider: { iss: string; sub: string }[];
  };
} & {
  /** Every entry of each media type, as GET /v1/my/{mediaType}/ratings shows it. */
  [M in MediaType]: RatingViewOf<M>[];
} & {
  /** Every event of each media type, as GET /v1/my/{mediaType}/history shows it (contract §20). */
  [M in MediaType as `${M}_history`]: EventView[];
} & {
  /** For each title with an entry, its viewings as GET …/{id}/viewings shows them. */
  [M in MediaType as `${M}_viewings`]: { title_id: number; viewings: ViewingView[] }[];
} & {
  /** As GET /v1/my/profile shows it. */
  profile: ProfileView;
  /** The applications the user authorized on the consent page. */
  authorized_clients: {
    client_id: string;
    name: string;
    first_authorized_at: string;
    last_authorized_at: string;
    /** false once every authorization of that client was revoked. */
    active: boolean;
  }[];
  /** As GET /v1/my/scrobblers shows them: never a secret (contract §21). */
  scrobblers: ScrobblerView[];
  /** As GET /v1/my/scrobble-mappings shows them. */
  scrobble_mappings: ScrobbleMappingView[];
  /** As GET /v1/my/scrobblers/unmatched shows them. */
  unmatched_scrobbles: UnmatchedScrobbleView[];
};

@Injectable()
export class AccountExport {
  constructor(
    private readonly named: NamedUsers,
    private readonly ratings: RatingsService,
    private readonly statistics: ProfileStatisticsService,
    private readonly grants: GrantsService,
    private readonly identities: ExternalIdentitiesService,
    private readonly history: HistoryService,
    private readonly scrobblers: ScrobblersService,
    private readonly scrobbleLedger: ScrobbleLedger,
  ) {}

  async export(name: string): Promise<UserExport> {
    const user = await this.named.find(name);
    const joinedAt = toIsoSeconds(user.createdAt);
    const lists: Partial<Record<MediaType, unknown[]>> = {};
    const histories: Record<string, unknown[]> = {};
    const viewings: Record<string, unknown[]> = {};
    for (const { name: mediaType } of DESCRIPTOR_LIST) {
      lists[mediaType] = await this.ratings.getAll(user.id, mediaType);
      const exported = await this.history.exportOf(user.id, mediaType);
      histories[`${mediaType}_history`] = exported.history;
      viewings[`${mediaType}_viewings`] = exported.viewings;
    }
    return {
      user: {
        id: user.id,
        name: user.name,
        joined_at: joinedAt,
        identity_provider: await this.identities.ofUser(user.id),
      },
      ...(lists as { [M in MediaType]: RatingViewOf<M>[] }),
      ...(histories as Pick<UserExport, `${MediaType}_history`>),
      ...(viewings as Pick<UserExport, `${MediaType}_viewings`>),
      profile: {
        id: user.id,
        name: user.name,
        joined_at: joinedAt,
        statistics: await this.statistics.forUser(user),
      },
      authorized_clients: (await this.grants.authorizedClients(user.id)).map((client) => ({
        client_id: client.clientId,
        name: client.name,
        first_authorized_at: toIsoSeconds(client.firstAuthorizedAt),
        last_authorized_at: toIsoSeconds(client.lastAuthorizedAt),
        active: client.active,
      })),
      scrobblers: await this.scrobblers.list(user.id),
      scrobble_mappings: await this.scrobbleLedger.mappingViews(user.id),
      unmatched_scrobbles: await this.scrobbleLedger.unmatchedViews(user.id),
    };
  }
}
