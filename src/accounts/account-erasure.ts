import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import { TokensService } from '../auth/tokens.service';
import { MEDIA_TYPES, MediaType } from '../common/media-type';
import { ProblemException } from '../common/problem';
import { GrantsService } from '../oauth/grants.service';
import { RatingsService } from '../ratings/ratings.service';
import { SyncDeletionsRepository } from '../sync/sync-deletions.repository';
import { UnknownUserError, UsersService } from '../users/users.service';
import { WebhooksRepository } from '../webhooks/webhooks.repository';

export interface ErasedUser {
  deleted: string;
  id: number;
  /** Entries deleted, each sent to the webhooks as `rating.deleted`. */
  entries: Record<MediaType, number>;
}

/**
 * `users delete` (the right to erasure): the user and everything stored about them, in one
 * transaction, each module deleting its own rows through its own service. The entries go through
 * the write path, so that webhooks get `rating.deleted` for each one (their receivers erase their
 * copies too); the user's events not yet sent go first, since they carry the entries' data.
 * The identity provider's pairs of the user stay blocked, so that the next JWT does not create
 * the user again (`users unblock` lifts that). Every request looks its token up in the database:
 * none of the user's tokens works from the next request on, on every instance.
 */
@Injectable()
export class AccountErasure {
  constructor(
    private readonly users: UsersService,
    private readonly ratings: RatingsService,
    private readonly identities: ExternalIdentitiesService,
    private readonly accessTokens: TokensService,
    private readonly grants: GrantsService,
    private readonly webhooks: WebhooksRepository,
    private readonly syncDeletions: SyncDeletionsRepository,
  ) {}

  async erase(name: string): Promise<ErasedUser> {
    const user = await this.users.findByExactName(name);
    if (!user) throw new UnknownUserError(name);
    const userId = user.id;
    const lists = {
      anime: await this.ratings.getAll(userId, 'anime'),
      manga: await this.ratings.getAll(userId, 'manga'),
    };
    const entries: Record<MediaType, number> = { anime: 0, manga: 0 };
    await this.ratings.inWriteTransaction(async (writer) => {
      await writer.alongside(async (manager) => {
        await this.identities.blockUser(userId, manager);
        await this.identities.deleteOfUser(manager, userId);
        await this.accessTokens.deleteOfUser(manager, userId);
        await this.grants.deleteOfUser(manager, userId);
        await this.webhooks.dropPendingOfUser(manager, userId);
      });
      for (const mediaType of MEDIA_TYPES) {
        for (const entry of lists[mediaType]) {
          try {
            await writer.remove(userId, mediaType, { id: entry.id, byExternalId: false });
            entries[mediaType] += 1;
          } catch (error) {
            // 404: deleted since the list was read.
            if (!(error instanceof ProblemException)) throw error;
          }
        }
      }
      await writer.alongside(async (manager) => {
        await this.syncDeletions.forgetUser(manager, userId);
        await this.ratings.forgetUser(manager, userId);
        await this.users.delete(manager, userId);
      });
    });
    return { deleted: name, id: userId, entries };
  }
}
