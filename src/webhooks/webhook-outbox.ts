import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RatingChange } from '../ratings/rating-change';
import { UsersService } from '../users/users.service';
import { EVENT_OF_KIND, eventBody } from './webhook-events';
import { WebhooksRepository } from './webhooks.repository';

/**
 * The webhooks' part of the entry write path: inside the write's transaction, one outbox message
 * per webhook subscribed to the event, so that a committed write is delivered even if the process
 * dies right after, and a write that rolls back sends nothing (contract §15).
 */
@Injectable()
export class WebhookOutbox {
  /** User names read in a transaction (an import writes thousands of entries of one user). */
  private readonly namesOf = new WeakMap<EntityManager, Map<number, string>>();

  constructor(
    private readonly repository: WebhooksRepository,
    private readonly users: UsersService,
  ) {}

  async record(em: EntityManager, change: RatingChange): Promise<void> {
    const type = EVENT_OF_KIND[change.kind];
    const webhookIds = (await this.repository.subscribers(em))
      .filter((webhook) => webhook.events.includes(type))
      .map((webhook) => webhook.id);
    if (webhookIds.length === 0) return;
    const name = await this.userName(em, change.userId);
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

  private async userName(em: EntityManager, userId: number): Promise<string> {
    let names = this.namesOf.get(em);
    if (!names) this.namesOf.set(em, (names = new Map<number, string>()));
    let name = names.get(userId);
    if (name === undefined) {
      name = (await this.users.nameIn(em, userId)) ?? '';
      names.set(userId, name);
    }
    return name;
  }
}
