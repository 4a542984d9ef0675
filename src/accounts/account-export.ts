import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import { toIsoSeconds } from '../common/timestamps';
import { GrantsService } from '../oauth/grants.service';
import { ProfileStatisticsService } from '../profile/profile-statistics.service';
import type { ProfileView } from '../profile/profile.dto';
import { RatingsService, RatingViewOf } from '../ratings/ratings.service';
import { UnknownUserError, UsersService } from '../users/users.service';

/** `users export`: everything stored about a user, as one JSON document. */
export interface UserExport {
  user: {
    id: number;
    name: string;
    joined_at: string;
    /** The identity provider's pairs (`iss`, `sub`) that sign in as this user. */
    identity_provider: { iss: string; sub: string }[];
  };
  /** Every entry, as GET /v1/my/anime/ratings shows it. */
  anime: RatingViewOf<'anime'>[];
  manga: RatingViewOf<'manga'>[];
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
}

@Injectable()
export class AccountExport {
  constructor(
    private readonly users: UsersService,
    private readonly ratings: RatingsService,
    private readonly statistics: ProfileStatisticsService,
    private readonly grants: GrantsService,
    private readonly identities: ExternalIdentitiesService,
  ) {}

  async export(name: string): Promise<UserExport> {
    const found = await this.users.findByExactName(name);
    const user = found && (await this.users.findById(found.id));
    if (!user) throw new UnknownUserError(name);
    const joinedAt = toIsoSeconds(user.createdAt);
    return {
      user: {
        id: user.id,
        name: user.name,
        joined_at: joinedAt,
        identity_provider: await this.identities.ofUser(user.id),
      },
      anime: await this.ratings.getAll(user.id, 'anime'),
      manga: await this.ratings.getAll(user.id, 'manga'),
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
