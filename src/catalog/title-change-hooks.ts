import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MediaType } from '../media-types/media-type';

/** Runs inside the catalog write's transaction; `em` is that transaction. Throwing rolls it back. */
export type TitleChangeHook = (
  em: EntityManager,
  mediaType: MediaType,
  titleIds: number[],
) => Promise<void>;

/**
 * The catalog's extension point, so that it depends on no module that shows its titles: such a
 * module (ratings: the versions of the lists holding a title) registers a hook at start-up, in
 * `onModuleInit`. Every catalog write (the imports, from the server or the CLI) runs the hooks in
 * registration order, inside its transaction, with the ids of the existing titles it changed.
 */
@Injectable()
export class TitleChangeHooks {
  private readonly hooks: TitleChangeHook[] = [];

  register(hook: TitleChangeHook): void {
    this.hooks.push(hook);
  }

  /** @internal Called by the catalog's write path only. */
  async run(em: EntityManager, mediaType: MediaType, titleIds: number[]): Promise<void> {
    for (const hook of this.hooks) await hook(em, mediaType, titleIds);
  }
}
