import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { BodyCache, CachedBody } from './body-cache';
import { conditionalRead, entityTag } from './entity-tag';
import { JSON_CONTENT_TYPE, TagInputs } from './reply';

type Version = readonly (string | number)[];

/**
 * Answers reads whose body is costly (a whole list, a profile's statistics) from a version that
 * moves with every change of the body (contract §10). A matching `If-None-Match` gets 304 after
 * reading the version alone. A 200 tags its body with the version read before it only when the
 * version is still the same after it (so that no other body ever had that tag); if writes keep
 * racing the read, the tag is made from the body. Bodies sent under a version tag are kept,
 * serialized, in a cache bounded by BODY_CACHE_MB: the next read of the same version, on this
 * instance, sends those bytes without reading or serializing the list again.
 *
 * A cached body is only reached through its tag, and the tag only through a version read from the
 * database first: once `users delete` erased a user, no route gets that far for them (tokens are
 * gone: 401; the public list and the version reads find no user: 404), on any instance, and a later
 * user given the same id has another creation time in its tags. The erased user's bodies are
 * never sent again; they leave the cache as it evicts (no instance hears of an erasure the CLI
 * makes, and keeping the cache's memory bounded is what BODY_CACHE_MB is for).
 */
@Injectable()
export class VersionedReads {
  private readonly cache: BodyCache;
  private readonly building = new Map<string, Promise<CachedBody | undefined>>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.cache = new BodyCache(config.bodyCacheBytes);
  }

  async send(
    request: FastifyRequest,
    reply: FastifyReply,
    inputs: TagInputs,
    version: () => Promise<Version>,
    body: () => Promise<unknown>,
  ): Promise<void> {
    let before = await version();
    const versionTag = (data: Version) => entityTag({ ...inputs, data: ['version', ...data] });
    let tag = versionTag(before);
    if (conditionalRead(request, reply, tag)) {
      await reply.status(304).send();
      return;
    }
    const cached = this.cache.get(tag) ?? (await this.building.get(tag));
    if (cached) {
      await this.sendBody(reply, cached.json, cached.link);
      return;
    }
    // Requests for the same version that arrive while this one builds the body wait for it.
    const firstTag = tag;
    const share: { resolve?: (built: CachedBody | undefined) => void } = {};
    if (!this.building.has(firstTag)) {
      this.building.set(firstTag, new Promise((resolve) => (share.resolve = resolve)));
    }
    try {
      for (let attempt = 1; attempt <= 3; attempt++) {
        const json = Buffer.from(JSON.stringify(await body()));
        const after = await version();
        if (after.join('\n') === before.join('\n')) {
          if (attempt > 1 && conditionalRead(request, reply, tag)) {
            await reply.status(304).send();
            return;
          }
          const link = reply.getHeader('link');
          const built = { json, link: typeof link === 'string' ? link : null };
          this.cache.set(tag, built);
          if (tag === firstTag) share.resolve?.(built);
          await this.sendBody(reply, json);
          return;
        }
        before = after;
        tag = versionTag(before);
      }
    } finally {
      if (share.resolve) {
        share.resolve(undefined);
        this.building.delete(firstTag);
      }
    }
    const json = JSON.stringify(await body());
    void reply.header('ETag', entityTag({ ...inputs, data: ['body'] }, json));
    await this.sendBody(reply, Buffer.from(json));
  }

  private async sendBody(reply: FastifyReply, json: Buffer, link?: string | null): Promise<void> {
    if (link === null) reply.removeHeader('Link');
    else if (link !== undefined) void reply.header('Link', link);
    await reply.type(JSON_CONTENT_TYPE).send(json);
  }
}
