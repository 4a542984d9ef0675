import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RatingChange } from './rating-change';

/** Runs inside the write's transaction; `em` is that transaction. Throwing rolls the write back. */
export type RatingWriteHook = (em: EntityManager, change: RatingChange) => Promise<void>;

/**
 * The write path's extension point. Other modules register their hooks at start-up (in
 * `onModuleInit`); every entry write (PUT, DELETE, imports, the CLI) runs them in registration
 * order, inside its transaction, after the entry row is written.
 */
@Injectable()
export class RatingWriteHooks {
  private readonly hooks: RatingWriteHook[] = [];

  register(hook: RatingWriteHook): void {
    this.hooks.push(hook);
  }

  /** @internal Called by the ratings write path only. */
  async run(em: EntityManager, change: RatingChange): Promise<void> {
    for (const hook of this.hooks) await hook(em, change);
  }
}
