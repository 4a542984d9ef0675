import type { FastifyReply, FastifyRequest } from 'fastify';
import { conditionalRead, entityTag, EntityTagKey } from './entity-tag';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export type TagInputs = Omit<EntityTagKey, 'data'>;

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
  // Serialized once: the tag is made from the very bytes that are sent.
  const json = JSON.stringify(body);
  const etag = entityTag({ ...inputs, data: ['body'] }, json);
  if (conditionalRead(request, reply, etag)) await reply.status(304).send();
  else await reply.type(JSON_CONTENT_TYPE).send(json);
}
