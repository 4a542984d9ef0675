import {
  applyDecorators,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Req,
  RequestMethod,
  Res,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { article, capitalized, type MediaType } from '../media-types/media-type';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import {
  CONDITIONAL_READ_HEADERS,
  ConditionalRead,
} from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { VersionedReads } from '../conditional-reads/versioned-reads';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { SuccessView } from '../ratings/dto/rating-view.dto';
import { DESCRIPTOR_LIST, type MediaTypeDescriptor } from '../media-types';
import { RatingRequestGuard } from '../ratings/rating-request.guard';
import { CurrentTitleRef, type TitleRef } from '../ratings/title-ref';
import { historyEventViewFor, ViewingView } from './history.dto';
import {
  nextPageQuery,
  parseEventId,
  parseHistoryOptions,
  type HistoryOptions,
} from './history-options';
import { HistoryService, type EventPage } from './history.service';

/** Endpoint rows (contract §5): anime and manga routes of a row share a budget. */
export const HISTORY_ENDPOINTS = {
  list: 'history.list',
  title: 'history.title',
  viewings: 'history.viewings',
  remove: 'history.delete',
  revert: 'history.revert',
} as const;

const LINK_HEADER = {
  Link: {
    description:
      '`<path?…&before=ID>; rel="next"` while more events remain (the other options kept), and only then',
    schema: { type: 'string' },
  },
};

function HistoryOptionsDocs() {
  return applyDecorators(
    ApiQuery({
      name: 'limit',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
      description: 'At most this many events',
    }),
    ApiQuery({
      name: 'before',
      required: false,
      schema: { type: 'integer', minimum: 1, format: 'int64' },
      description: 'Only events with a smaller id (the last id of the previous page)',
    }),
    ApiQuery({
      name: 'from',
      required: false,
      schema: { type: 'string', format: 'date' },
      description: 'First day, in your time zone (settings), inclusive',
    }),
    ApiQuery({
      name: 'to',
      required: false,
      schema: { type: 'string', format: 'date' },
      description: 'Last day, in your time zone (settings), inclusive; not before `from`',
    }),
  );
}

function TitleDocs(notFound: string) {
  return applyDecorators(
    ApiQuery({
      name: 'use_external_id',
      required: false,
      enum: ['true', 'false'],
      description: "true: `{id}` is the title's external_id",
    }),
    ApiParam({
      name: 'id',
      description: 'Title id (internal, or the external_id with use_external_id=true)',
      schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    }),
    ApiNotFoundResponse({ description: notFound }),
  );
}

const EventIdDocs = () =>
  ApiParam({
    name: 'event_id',
    description: 'The `id` of an event of that title',
    schema: { type: 'integer', minimum: 1, format: 'int64' },
  });

function historyControllerFor<M extends MediaType>(descriptor: MediaTypeDescriptor<M>) {
  const mediaType = descriptor.name;
  const Media = capitalized(mediaType);
  const EventView = historyEventViewFor(descriptor);

  @ApiTags(`${mediaType} history`)
  @Controller(`v1/my/${mediaType}`)
  @Scopes(descriptor.scope)
  class HistoryController {
    constructor(
      readonly history: HistoryService,
      readonly versionedReads: VersionedReads,
    ) {}

    @Get('history')
    @RateLimited(HISTORY_ENDPOINTS.list)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `list${Media}History`,
      summary: `What changed in your ${mediaType} list, and when: newest first`,
      description:
        'One event per write that created an entry or changed its status, progress or score. Pages: `limit`, then `before` = the last id of the page (the `Link` header gives the next page).',
    })
    @ApiQuery({
      name: 'use_external_id',
      required: false,
      enum: ['true', 'false'],
      description: 'Accepted and ignored here; any other value is 400',
    })
    @HistoryOptionsDocs()
    @ApiBadRequestResponse({ description: 'An invalid option, named in `errors`' })
    @ConditionalRead()
    @ApiOkResponse({
      type: EventView,
      isArray: true,
      headers: { ...CONDITIONAL_READ_HEADERS, ...LINK_HEADER },
    })
    async list(
      @CurrentUser() user: AuthenticatedUser,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const query = request.query as Record<string, unknown>;
      const options = parseHistoryOptions(query);
      // Checked by RatingRequestGuard; kept in the next page's link as given.
      const useExternalId =
        query.use_external_id === undefined ? undefined : query.use_external_id === 'true';
      await this.send(
        request,
        reply,
        user,
        HISTORY_ENDPOINTS.list,
        `/v1/my/${mediaType}/history`,
        options,
        (zone) => this.history.events(user.id, mediaType, null, options, zone),
        { use_external_id: useExternalId === undefined ? null : Number(useExternalId) },
        useExternalId,
      );
    }

    @Get(':id/history')
    @RateLimited(HISTORY_ENDPOINTS.title)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `list${Media}TitleHistory`,
      summary: `The history of one ${mediaType} title, newest first`,
      description: '`[]` when you have no entry for the title.',
    })
    @TitleDocs('No such title in the catalog')
    @HistoryOptionsDocs()
    @ApiBadRequestResponse({ description: 'Invalid id or option, named in `errors`' })
    @ConditionalRead()
    @ApiOkResponse({
      type: EventView,
      isArray: true,
      headers: { ...CONDITIONAL_READ_HEADERS, ...LINK_HEADER },
    })
    async title(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const options = parseHistoryOptions(request.query as Record<string, unknown>);
      const rawId = (request.params as { id: string }).id;
      // Before the tag: an unknown title is 404 with no ETag, whatever If-None-Match says.
      const entry = await this.history.entryOf(user.id, mediaType, ref);
      await this.send(
        request,
        reply,
        user,
        HISTORY_ENDPOINTS.title,
        `/v1/my/${mediaType}/${rawId}/history`,
        options,
        (zone) =>
          entry === null
            ? this.history.titleEvents(user.id, mediaType, ref, options, zone)
            : this.history.events(user.id, mediaType, entry.id, options, zone),
        { id: ref.id, use_external_id: ref.useExternalIdQuery === true ? 1 : 0 },
        ref.useExternalIdQuery,
      );
    }

    @Get(':id/viewings')
    @RateLimited(HISTORY_ENDPOINTS.viewings)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `list${Media}Viewings`,
      summary: `Your viewings of ${article(mediaType)} ${mediaType} title (first time and each repeat), by number`,
      description: '`[]` when you have no entry for the title, or it was never started.',
    })
    @TitleDocs('No such title in the catalog')
    @ApiBadRequestResponse({ description: 'Invalid id or use_external_id' })
    @ConditionalRead({ type: ViewingView, isArray: true })
    async viewings(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const body = await this.history.viewings(user.id, mediaType, ref);
      await sendTaggedBody(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint: HISTORY_ENDPOINTS.viewings,
          mediaType,
          query: { id: ref.id, use_external_id: ref.useExternalIdQuery === true ? 1 : 0 },
        },
        body,
      );
    }

    @Delete(':id/history/:event_id')
    @RateLimited(HISTORY_ENDPOINTS.remove)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `delete${Media}HistoryEvent`,
      summary: `Remove one event from the history of ${article(mediaType)} ${mediaType} title`,
      description: 'The entry and its viewings stay as they are.',
    })
    @TitleDocs('No such title, or no such event of yours for it')
    @EventIdDocs()
    @ApiBadRequestResponse({ description: 'Invalid id, event_id or use_external_id' })
    @ApiOkResponse({ type: SuccessView })
    async remove(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Param('event_id') rawEventId: string,
    ): Promise<SuccessView> {
      await this.history.deleteEvent(user.id, mediaType, ref, parseEventId(rawEventId));
      return { success: true };
    }

    @Post(':id/history/:event_id/revert')
    @HttpCode(200)
    @RateLimited(HISTORY_ENDPOINTS.revert)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `revert${Media}HistoryEvent`,
      summary: `Undo the latest change of ${article(mediaType)} ${mediaType} title`,
      description:
        "A write like PUT that sets each member the event changed back to its `from` value (and records its own event); for the event that created the entry, the entry is deleted as DELETE does. Only the title's latest event can be reverted.",
    })
    @TitleDocs('No such title, or no such event of yours for it')
    @EventIdDocs()
    @ApiBadRequestResponse({ description: 'Invalid id, event_id or use_external_id' })
    @ApiConflictResponse({ description: "The event is not the title's latest" })
    @ApiOkResponse({ type: SuccessView })
    async revert(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Param('event_id') rawEventId: string,
    ): Promise<SuccessView> {
      await this.history.revert(user, mediaType, ref, parseEventId(rawEventId));
      return { success: true };
    }

    private async send(
      request: FastifyRequest,
      reply: FastifyReply,
      user: AuthenticatedUser,
      endpoint: string,
      path: string,
      options: HistoryOptions,
      page: (zone: string | null) => Promise<EventPage>,
      query: Record<string, number | null>,
      useExternalId?: boolean,
    ): Promise<void> {
      // Read once: the days of `from` and `to` are this zone's, in the page and in its tag.
      const zone = await this.history.zoneOf(user.id, options);
      await this.versionedReads.send(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint,
          mediaType,
          query: {
            ...query,
            limit: options.limit,
            before: options.before,
            from: options.from,
            to: options.to,
            zone,
          },
        },
        () => this.history.version(user.id),
        async () => {
          const { events, hasMore } = await page(zone);
          if (hasMore) {
            const next = `${path}?${nextPageQuery(options, events[events.length - 1].id, useExternalId)}`;
            void reply.header('Link', `<${next}>; rel="next"`);
          }
          return events;
        },
      );
    }
  }
  return HistoryController;
}

export const HISTORY_CONTROLLERS = DESCRIPTOR_LIST.map(historyControllerFor);

export const UnknownMediaTypeHistoryController = unknownMediaTypeController('v1/my/:mediaType', {
  list: { method: RequestMethod.GET, path: 'history', endpoint: HISTORY_ENDPOINTS.list },
  title: { method: RequestMethod.GET, path: ':id/history', endpoint: HISTORY_ENDPOINTS.title },
  viewings: {
    method: RequestMethod.GET,
    path: ':id/viewings',
    endpoint: HISTORY_ENDPOINTS.viewings,
  },
  remove: {
    method: RequestMethod.DELETE,
    path: ':id/history/:event_id',
    endpoint: HISTORY_ENDPOINTS.remove,
  },
  revert: {
    method: RequestMethod.POST,
    path: ':id/history/:event_id/revert',
    endpoint: HISTORY_ENDPOINTS.revert,
  },
});
