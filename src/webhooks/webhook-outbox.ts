import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RatingChange } from '../ratings/rating-change';
import { UsersService } from '../users/users.service';
import { EVENT_OF_KIND, eventBody } from './webhook-events';
import { Subscriber, WebhookOutboxRepository } from './webhook-outbox.repository';

/**
 * The webhooks' part of the entry write path: inside the write's transaction, one outbox message
 * per webhook subscribed to the event, so that a committed write is delivered even if the process
 * dies right after, and a write that rolls back sends nothing (contract §15).
 */
@Injectable()
export class WebhookOutbox {
  /**
   * What a write transaction read: the webhooks once per transaction, not per entry, and user
   * names (an import writes thousands of entries of one user).
   */
  private readonly readsOf = new WeakMap<
    EntityManager,
    Promise<{ subscribers: Subscriber[]; names: Map<number, string> }>
  >();

  constructor(
    private readonly repository: WebhookOutboxRepository,
    private readonly users: UsersService,
  ) {}

  async record(em: EntityManager, change: RatingChange): Promise<void> {
    const type = EVENT_OF_KIND[change.kind];
    const read = await this.read(em);
    const webhookIds = read.subscribers
      .filter((webhook) => webhook.events.includes(type))
      .map((webhook) => webhook.id);
    if (webhookIds.length === 0) return;
    let name = change.userName ?? read.names.get(change.userId);
    if (name === undefined) {
      name = (await this.users.nameIn(em, change.userId)) ?? '';
      read.names.set(change.userId, name);
    }
    await this.repository.enqueue(
      em,
      {
        id: `msg_${randomUUID().replace(/-/g, '')}`,
        type,
        userId: change.userId,
        body: eventBody(change, name),
      },
      webhookIds,
      Date.now(),
    );
  }

  private read(
    em: EntityManager,
  ): Promise<{ subscribers: Subscriber[]; names: Map<number, string> }> {
    let read = this.readsOf.get(em);
    if (!read) {
      read = this.repository
        .subscribers(em)
        .then((subscribers) => ({ subscribers, names: new Map<number, string>() }));
      this.readsOf.set(em, read);
    }
    return read;
  }
}
