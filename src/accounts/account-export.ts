import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import type { MediaType } from '../media-types/media-type';
import { toIsoSeconds } from '../common/timestamps';
import { GrantsService } from '../oauth/grants.service';
import { ProfileStatisticsService } from '../profile/profile-statistics.service';
import type { ProfileView } from '../profile/profile.dto';
import { DESCRIPTOR_LIST } from '../media-types';
import { RatingsService, RatingViewOf } from '../ratings/ratings.service';
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
};

@Injectable()
export class AccountExport {
  constructor(
    private readonly named: NamedUsers,
    private readonly ratings: RatingsService,
    private readonly statistics: ProfileStatisticsService,
    private readonly grants: GrantsService,
    private readonly identities: ExternalIdentitiesService,
  ) {}

  async export(name: string): Promise<UserExport> {
    const user = await this.named.find(name);
    const joinedAt = toIsoSeconds(user.createdAt);
    const lists: Partial<Record<MediaType, unknown[]>> = {};
    for (const { name: mediaType } of DESCRIPTOR_LIST) {
      lists[mediaType] = await this.ratings.getAll(user.id, mediaType);
    }
    return {
      user: {
        id: user.id,
        name: user.name,
        joined_at: joinedAt,
        identity_provider: await this.identities.ofUser(user.id),
      },
      ...(lists as { [M in MediaType]: RatingViewOf<M>[] }),
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
    };
  }
}
