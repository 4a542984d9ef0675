import type { RatingChange, RatingChangeKind } from '../ratings/rating-change';
import { toIsoSeconds } from '../common/timestamps';

export const WEBHOOK_EVENTS = ['rating.created', 'rating.updated', 'rating.deleted'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const EVENT_OF_KIND: Record<RatingChangeKind, WebhookEventType> = {
  created: 'rating.created',
  updated: 'rating.updated',
  deleted: 'rating.deleted',
};

export function isWebhookEvent(name: string): name is WebhookEventType {
  return (WEBHOOK_EVENTS as readonly string[]).includes(name);
}

/** The body of contract §15, exactly these members. */
export function eventBody(change: RatingChange, userName: string): string {
  return JSON.stringify({
    type: EVENT_OF_KIND[change.kind],
    timestamp: toIsoSeconds(change.at),
    data: {
      user: { id: change.userId, name: userName },
      media_type: change.mediaType,
      title_id: change.titleId,
      external_id: change.externalId,
      revision: change.revision,
      entry: change.entry,
    },
  });
}
