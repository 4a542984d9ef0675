import { Injectable } from '@nestjs/common';
import { ExternalIdentitiesService } from '../auth/external-identities.service';
import { TokensService } from '../auth/tokens.service';
import type { MediaType } from '../media-types/media-type';
import { HistoryRecorder } from '../history/history-recorder';
import { GrantsService } from '../oauth/grants.service';
import { DESCRIPTOR_LIST } from '../media-types';
import { RatingsService } from '../ratings/ratings.service';
import { SettingsService } from '../settings/settings.service';
import { SyncDeletionsRepository } from '../sync/sync-deletions.repository';
import { UsersService } from '../users/users.service';
import { WebhooksService } from '../webhooks/webhooks.service';
import { ScrobbleLedger } from '../scrobbling/scrobble-ledger';
import { ScrobblersService } from '../scrobbling/scrobblers.service';
import { NamedUsers } from './named-user';

export interface ErasedUser {
  deleted: string;
  id: number;
  /** Entries deleted, by media type, each sent to the webhooks as `rating.deleted`. */
  entries: Record<MediaType, number>;
}

/**
 * `users delete` (the right to erasure): the user and everything stored about them, in one
 * transaction, each module deleting its own rows through its own service. The user's list is
 * locked first, so that the user's writes wait for the erasure and every entry, of every media
 * type, is read and deleted in that transaction. The entries go through the write path, so that
 * webhooks get `rating.deleted` for each one (their receivers erase their copies too); the user's
 * events not yet sent go first, since they carry the entries' data.
 * The identity provider's pairs of the user stay blocked, so that the next JWT does not create
 * the user again (`users unblock` lifts that). Every request looks its token up in the database:
 * none of the user's tokens works from the next request on, on every instance.
 */
@Injectable()
export class AccountErasure {
  constructor(
    private readonly named: NamedUsers,
    private readonly users: UsersService,
    private readonly ratings: RatingsService,
    private readonly identities: ExternalIdentitiesService,
    private readonly accessTokens: TokensService,
    private readonly grants: GrantsService,
    private readonly webhooks: WebhooksService,
    private readonly syncDeletions: SyncDeletionsRepository,
    private readonly history: HistoryRecorder,
    private readonly settings: SettingsService,
    private readonly scrobblers: ScrobblersService,
    private readonly scrobbleLedger: ScrobbleLedger,
  ) {}

  async erase(name: string): Promise<ErasedUser> {
    const { id: userId } = await this.named.find(name);
    const entries = await this.ratings.inWriteTransaction(async (writer) => {
      await writer.alongside(async (manager) => {
        await this.users.listChanged(userId, manager);
        await this.identities.blockUser(userId, manager);
        await this.identities.deleteOfUser(manager, userId);
        await this.accessTokens.deleteOfUser(manager, userId);
        await this.grants.deleteOfUser(manager, userId);
        await this.webhooks.dropPendingOfUser(manager, userId);
        await this.scrobblers.deleteOfUser(manager, userId);
        await this.scrobbleLedger.forgetUser(manager, userId);
      });
      const deleted: Partial<Record<MediaType, number>> = {};
      for (const { name: mediaType } of DESCRIPTOR_LIST) {
        deleted[mediaType] = await writer.removeAll(userId, mediaType);
      }
      await writer.alongside(async (manager) => {
        await this.syncDeletions.forgetUser(manager, userId);
        await this.history.forgetUser(manager, userId);
        await this.settings.forgetUser(manager, userId);
        await this.ratings.forgetUser(manager, userId);
        await this.users.delete(manager, userId);
      });
      return deleted as Record<MediaType, number>;
    });
    return { deleted: name, id: userId, entries };
  }
}
