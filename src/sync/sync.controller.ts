import { Controller, Get, Req, RequestMethod, Res, Type } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiGoneResponse,
  ApiOperation,
  ApiProperty,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { capitalized, type MediaType } from '../media-types/media-type';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import { ProblemException, PROBLEMS } from '../common/problem';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { DESCRIPTOR_LIST, descriptorOf } from '../media-types';
import { VIEWS } from '../ratings/dto/entry-classes';
import { SyncService } from './sync.service';

export const CHANGES_ENDPOINT = 'sync.changes';
const MAX_LIMIT = 1000;

class DeletedTitleView {
  @ApiProperty({ type: 'integer', description: "The title's internal id", example: 12 })
  id: number;

  @ApiProperty({ type: 'integer', nullable: true, example: 5114 })
  external_id: number | null;
}

function changesViewFor(entry: Type<unknown>, name: string) {
  class ChangesView {
    @ApiProperty({
      type: entry,
      isArray: true,
      description: 'Entries created or updated after `since` (every current entry without it)',
    })
    changes: unknown[];

    @ApiProperty({
      type: DeletedTitleView,
      isArray: true,
      description: 'Titles whose entry was deleted after `since` and not created again',
    })
    deleted: DeletedTitleView[];

    @ApiProperty({ description: 'Opaque: pass it as `since` on the next call' })
    cursor: string;

    @ApiProperty({ description: 'true: more changes remain; call again with `cursor` at once' })
    has_more: boolean;
  }
  Object.defineProperty(ChangesView, 'name', { value: name });
  return ChangesView;
}

function parseLimit(raw: unknown): number {
  if (raw === undefined) return MAX_LIMIT;
  if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw) || +raw < 1 || +raw > MAX_LIMIT) {
    throw ProblemException.validation(
      [{ field: 'limit', message: `must be an integer from 1 to ${MAX_LIMIT}` }],
      PROBLEMS.invalidParameter,
    );
  }
  return Number(raw);
}

function parseSince(raw: unknown): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '') {
    throw ProblemException.validation(
      [{ field: 'since', message: 'must be a cursor from an earlier response' }],
      PROBLEMS.invalidParameter,
    );
  }
  return raw;
}

function changesControllerFor<M extends MediaType>(mediaType: M, entry: Type<unknown>) {
  @ApiTags(`${mediaType} ratings`)
  @Controller(`v1/my/${mediaType}`)
  @Scopes(descriptorOf(mediaType).scope)
  class ChangesController {
    constructor(readonly sync: SyncService) {}

    @Get('changes')
    @RateLimited(CHANGES_ENDPOINT)
    @ApiOperation({
      operationId: `list${capitalized(mediaType)}Changes`,
      summary: `What changed in your ${mediaType} list since a cursor (incremental sync)`,
      description: [
        'Without `since`: every current entry (`deleted` empty) and a cursor: the first sync.',
        'With `since`: the entries written after that cursor (created or updated, with or without `touch`), and the titles whose entry was deleted after it and not created again. A title appears at most once.',
        '`has_more: true`: call again with the new `cursor` straight away. Keep the last cursor and pass it as `since` next time.',
        'A cursor of another user or media type, or one that was altered, is 400. A cursor older than the retention period (SYNC_RETENTION_DAYS) is 410: sync again from the start without `since`.',
        "The algorithm: (1) first sync: call without `since`, store every entry, follow `has_more` with `since=<cursor>`, keep the last cursor; (2) later: call with `since=<kept cursor>`, upsert `changes` by id, remove `deleted` titles, follow `has_more`, keep the last cursor (an empty answer gives a fresh one too); (3) on 410: drop the copy and do a first sync; (4) refresh title fields when GET all's ETag changes (catalog updates are not changes).",
      ].join('\n\n'),
    })
    @ApiQuery({
      name: 'since',
      required: false,
      description: 'A `cursor` from an earlier response',
    })
    @ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: MAX_LIMIT },
      description: 'At most this many items in `changes` and `deleted` together',
    })
    @ConditionalRead({ type: changesViewFor(entry, `${capitalized(mediaType)}ChangesView`) })
    @ApiBadRequestResponse({ description: 'Invalid limit, or since is not a cursor of this list' })
    @ApiGoneResponse({ description: 'The cursor expired: sync again without since' })
    async changes(
      @CurrentUser() user: AuthenticatedUser,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const query = request.query as Record<string, unknown>;
      const since = parseSince(query.since);
      const limit = parseLimit(query.limit);
      const page = await this.sync.changes(user.id, mediaType, since, limit);
      if (!page) throw ProblemException.notFound('The user of this token no longer exists');
      await sendTaggedBody(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint: CHANGES_ENDPOINT,
          mediaType,
          query: { since: since ?? null, limit },
        },
        page,
      );
    }
  }
  return ChangesController;
}

export const CHANGES_CONTROLLERS = DESCRIPTOR_LIST.map((descriptor) =>
  changesControllerFor(descriptor.name, VIEWS[descriptor.name]),
);

export const UnknownMediaTypeChangesController = unknownMediaTypeController('v1/my/:mediaType', {
  changes: { method: RequestMethod.GET, path: 'changes', endpoint: CHANGES_ENDPOINT },
});
