import type { FastifyReply, FastifyRequest } from 'fastify';
import { conditionalRead, entityTag, EntityTagKey } from './entity-tag';

type TagInputs = Omit<EntityTagKey, 'data'>;
type Version = readonly (string | number)[];

/**
 * Answers a read whose body is small or already at hand: the entity tag is made from the body
 * itself. 304 when the request's `If-None-Match` matches. Routes using these helpers take the
 * reply with `@Res()`: a passthrough reply would have its status reset to 200.
 */
export async function sendTaggedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  inputs: TagInputs,
  body: unknown,
): Promise<void> {
  const etag = entityTag({ ...inputs, data: ['body', JSON.stringify(body)] });
  if (conditionalRead(request, reply, etag)) await reply.status(304).send();
  else await reply.send(body);
}

/**
 * Answers a read whose body is costly (a whole list) from a version that moves with every change
 * of the body: a matching `If-None-Match` gets 304 after reading the version alone. A 200 tags its
 * body with the version read before it only when the version is still the same after it (so that
 * no other body ever had that tag); if writes keep racing the read, the tag is made from the body.
 */
export async function sendVersioned(
  request: FastifyRequest,
  reply: FastifyReply,
  inputs: TagInputs,
  version: () => Promise<Version>,
  body: () => Promise<unknown>,
): Promise<void> {
  let before = await version();
  const versionTag = (data: Version) => entityTag({ ...inputs, data: ['version', ...data] });
  if (conditionalRead(request, reply, versionTag(before))) {
    await reply.status(304).send();
    return;
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const value = await body();
    const after = await version();
    if (after.join('\n') === before.join('\n')) {
      if (attempt > 1 && conditionalRead(request, reply, versionTag(before))) {
        await reply.status(304).send();
      } else {
        await reply.send(value);
      }
      return;
    }
    before = after;
  }
  const value = await body();
  void reply.header('ETag', entityTag({ ...inputs, data: ['body', JSON.stringify(value)] }));
  await reply.send(value);
}
