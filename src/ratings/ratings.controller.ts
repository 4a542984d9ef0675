import {
  applyDecorators,
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Put,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiPayloadTooLargeResponse,
  ApiQuery,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ApiValidationPipe } from '../common/api-validation.pipe';
import { article, capitalized, type MediaType } from '../media-types/media-type';
import { ProblemException } from '../common/problem';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { VersionedReads } from '../conditional-reads/versioned-reads';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { ListOptionsDocs } from './list-options.docs';
import { PUT_DTOS, VIEWS, type PutRatingDto } from './dto/entry-classes';
import { SuccessView } from './dto/rating-view.dto';
import { parseListOptions, withNextPageLink } from './list-options';
import { RatingRequestGuard } from './rating-request.guard';
import { DESCRIPTOR_LIST, type MediaTypeDescriptor } from '../media-types';
import { otherMediaFieldExplainer } from './rating-fields';
import { RatingsService } from './ratings.service';
import { CurrentTitleRef, TitleRef } from './title-ref';

/** Endpoint rows (contract §2): anime and manga routes of a row share a rate-limit budget. */
export const RATING_ENDPOINTS = {
  getOne: 'ratings.get-one',
  getAll: 'ratings.get-all',
  remove: 'ratings.delete',
  put: 'ratings.put',
} as const;

/**
 * The title a route is about (`{id}` and `use_external_id`, read by RatingRequestGuard), and the
 * 400 and 404 they can give.
 */
function TitleRefDocs(notFound: string, badRequest = 'Invalid id or query value') {
  return applyDecorators(
    ApiQuery({
      name: 'use_external_id',
      required: false,
      enum: ['true', 'false'],
      description: "true: `{id}` is the title's external_id",
    }),
    ApiParam({
      name: 'id',
      description:
        'Title id (internal, or the external_id with use_external_id=true): a positive integer below 2^31',
      schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    }),
    ApiBadRequestResponse({ description: badRequest }),
    ApiNotFoundResponse({ description: notFound }),
  );
}

/**
 * The four rating endpoints for one media type. Anime and manga get a controller each, so each has
 * its own body DTO and OpenAPI schemas; any other `{mediaType}` is answered by
 * UnknownMediaTypeController.
 */
function ratingsControllerFor<M extends MediaType>(descriptor: MediaTypeDescriptor<M>) {
  const { name: mediaType, putExample } = descriptor;
  const putDto = PUT_DTOS[mediaType];
  const view = VIEWS[mediaType];
  const Media = capitalized(mediaType);
  const bodyPipe = new ApiValidationPipe({
    expectedType: putDto,
    explainUnknownField: otherMediaFieldExplainer(descriptor),
  });
  @ApiTags(`${mediaType} ratings`)
  @Controller(`v1/my/${mediaType}`)
  @Scopes(descriptor.scope)
  class RatingsController {
    constructor(
      readonly ratings: RatingsService,
      readonly versionedReads: VersionedReads,
    ) {}

    @Get(':id/ratings')
    @RateLimited(RATING_ENDPOINTS.getOne)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `get${Media}Rating`,
      summary: `Your entry for one ${mediaType} title, as an array of zero or one`,
    })
    @TitleRefDocs('No such title in the catalog')
    @ConditionalRead({ type: view, isArray: true })
    async getOne(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const body = await this.ratings.getOne(user.id, mediaType, ref);
      await sendTaggedBody(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint: RATING_ENDPOINTS.getOne,
          mediaType,
          query: { id: ref.id, use_external_id: ref.useExternalIdQuery === true ? 1 : 0 },
        },
        body,
      );
    }

    @Get('ratings')
    @RateLimited(RATING_ENDPOINTS.getAll)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `list${Media}Ratings`,
      summary: `All your ${mediaType} entries, ordered by title id`,
      description:
        'Without options: every entry. `status` keeps the entries with one of the given statuses; `limit` (with `after`, the last title id of the previous page) reads the list in pages, and a `Link: <…>; rel="next"` header gives the next page while entries remain.',
    })
    @ApiQuery({
      name: 'use_external_id',
      required: false,
      enum: ['true', 'false'],
      description: 'Accepted and ignored here; any other value is 400',
    })
    @ListOptionsDocs(view)
    @ConditionalRead()
    async getAll(
      @CurrentUser() user: AuthenticatedUser,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const options = parseListOptions(request.query as Record<string, unknown>);
      const version = async () => {
        const state = await this.ratings.listState(user.id, mediaType);
        if (!state) throw ProblemException.notFound('The user of this token no longer exists');
        return [state.userCreatedAt, state.revision, state.catalogVersion];
      };
      await this.versionedReads.send(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint: RATING_ENDPOINTS.getAll,
          mediaType,
          query: {
            status: options.statuses?.join(',') ?? null,
            limit: options.limit,
            after: options.after,
          },
        },
        version,
        async () => {
          const page = await this.ratings.getListed('own', user.id, mediaType, options);
          return withNextPageLink(reply, `/v1/my/${mediaType}/ratings`, options, page);
        },
      );
    }

    @Put(':id/ratings')
    @HttpCode(200)
    @RateLimited(RATING_ENDPOINTS.put)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `put${Media}Rating`,
      summary: `Create or update your entry for ${article(mediaType)} ${mediaType} title`,
      description:
        'Creates the entry when you have none (omitted fields get defaults: is_visible true, numbers 0, booleans false, dates null, notes ""), updates it otherwise (omitted fields keep their value). `status` is always required. Unknown fields, fields of the other media type, wrong JSON types and `null` (except for the dates) are 400.',
    })
    @TitleRefDocs(
      'No such title in the catalog',
      'Invalid id, query, JSON or field; every offending field is named in `errors`',
    )
    @ApiBody({ type: putDto, examples: { [mediaType]: { value: putExample } } })
    @ApiOkResponse({ type: SuccessView })
    @ApiPayloadTooLargeResponse({ description: 'Body over 16384 bytes' })
    @ApiUnsupportedMediaTypeResponse({ description: 'Content-Type is not application/json' })
    async put(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
      @Body(bodyPipe) body: PutRatingDto,
    ): Promise<SuccessView> {
      await this.ratings.put(user, mediaType, ref, body);
      return { success: true };
    }

    @Delete(':id/ratings')
    @RateLimited(RATING_ENDPOINTS.remove)
    @UseGuards(RatingRequestGuard)
    @ApiOperation({
      operationId: `delete${Media}Rating`,
      summary: `Delete your entry for ${article(mediaType)} ${mediaType} title`,
    })
    @TitleRefDocs('No such title, or you have no entry for it')
    @ApiOkResponse({ type: SuccessView })
    async remove(
      @CurrentUser() user: AuthenticatedUser,
      @CurrentTitleRef() ref: TitleRef,
    ): Promise<SuccessView> {
      await this.ratings.remove(user, mediaType, ref);
      return { success: true };
    }
  }
  return RatingsController;
}

/** The four rating endpoints of every media type. */
export const RATINGS_CONTROLLERS = DESCRIPTOR_LIST.map(ratingsControllerFor);
