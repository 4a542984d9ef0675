/** Every module's entities, handed to the database module by the composition root. */
import { AccessToken } from './auth/access-token.entity';
import { BlockedExternalIdentity } from './auth/blocked-external-identity.entity';
import { ExternalIdentity } from './auth/external-identity.entity';
import { IpDenial } from './auth/ip-denial.entity';
import { Title } from './catalog/title.entity';
import { TitleTag } from './catalog/title-tag.entity';
import { RatingEntry } from './ratings/rating-entry.entity';
import { RatingRevision } from './ratings/rating-revision.entity';
import { User } from './users/user.entity';
import { AuthorizationCode } from './oauth/entities/authorization-code.entity';
import { OAuthClient } from './oauth/entities/oauth-client.entity';
import { OAuthGrant } from './oauth/entities/oauth-grant.entity';
import { RefreshToken } from './oauth/entities/refresh-token.entity';
import { SignInReset } from './oauth/entities/sign-in-reset.entity';
import { SyncDeletion } from './sync/sync-deletion.entity';
import { SyncKey } from './sync/sync-key.entity';
import { Webhook } from './webhooks/webhook.entity';
import { PurgeLease } from './purges/purge-lease.entity';
import { HistoryEvent } from './history/history-event.entity';
import { HistoryViewing } from './history/history-viewing.entity';
import { UserSettings } from './settings/user-settings.entity';
import { TitleName } from './catalog/title-name.entity';
import { TitleRef } from './catalog/title-ref.entity';
import { Scrobbler } from './scrobbling/scrobbler.entity';
import { ScrobbleMapping } from './scrobbling/scrobble-mapping.entity';
import { ScrobbleRecent } from './scrobbling/scrobble-recent.entity';
import { ScrobbleUnmatched } from './scrobbling/scrobble-unmatched.entity';

export const ENTITIES = [
  User,
  AccessToken,
  Title,
  TitleTag,
  RatingEntry,
  RatingRevision,
  OAuthClient,
  OAuthGrant,
  AuthorizationCode,
  RefreshToken,
  SyncDeletion,
  SyncKey,
  ExternalIdentity,
  BlockedExternalIdentity,
  Webhook,
  PurgeLease,
  IpDenial,
  SignInReset,
  HistoryEvent,
  HistoryViewing,
  UserSettings,
  TitleRef,
  TitleName,
  Scrobbler,
  ScrobbleRecent,
  ScrobbleUnmatched,
  ScrobbleMapping,
];
