import { Controller, Get, Param, Req, RequestMethod, Res, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Scopes } from '../auth/auth.decorators';
import { SCOPES } from '../auth/scopes';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { DESCRIPTOR_LIST } from '../media-types';
import { capitalized, type MediaType } from '../media-types/media-type';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import { STATISTICS_ENDPOINTS } from '../statistics/statistics.controller';
import { STATISTICS_BODY_VIEWS, statisticsExample } from '../statistics/statistics.dto';
import { StatisticsService } from '../statistics/statistics.service';
import { UsersService } from '../users/users.service';
import { findPublicOwner, OwnerNameParam } from './public-owner';

/** Another user's statistics of one media type (contract §22): visible entries only. */
function publicStatisticsControllerFor(mediaType: MediaType, view: Type<unknown>) {
  @ApiTags('public lists')
  @Controller(`v1/users/:name/statistics/${mediaType}`)
  @Scopes(SCOPES.profile)
  class PublicStatisticsController {
    constructor(
      readonly users: UsersService,
      readonly statistics: StatisticsService,
    ) {}

    @Get()
    @RateLimited(STATISTICS_ENDPOINTS.public)
    @ApiOperation({
      operationId: `getPublic${capitalized(mediaType)}Statistics`,
      summary: `Another user's ${mediaType} statistics, over their visible entries`,
      description:
        "Only when the operator set PUBLIC_LISTS=true (otherwise 404). The object of your own statistics, computed the same way over the entries the user marked `is_visible: true` only, without `activity`: private entries count nowhere. Any user's token with the `user.profile` scope may read it. The ETag moves only when this body changes.",
    })
    @OwnerNameParam()
    @ConditionalRead({ type: view, example: statisticsExample(mediaType, 'public') })
    async get(
      @Param('name') name: string,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const owner = await findPublicOwner(this.users, name);
      const body = await this.statistics.public(owner, mediaType);
      // Tagged by the body itself: a write that changes the public list but none of these
      // numbers (a visible entry's dates, say) leaves the ETag as it was (contract §18).
      await sendTaggedBody(
        request,
        reply,
        {
          userId: owner.id,
          view: 'public',
          endpoint: STATISTICS_ENDPOINTS.public,
          mediaType,
          query: {},
        },
        body,
      );
    }
  }
  return PublicStatisticsController;
}

export const PUBLIC_STATISTICS_CONTROLLERS = DESCRIPTOR_LIST.map((descriptor) =>
  publicStatisticsControllerFor(descriptor.name, STATISTICS_BODY_VIEWS[descriptor.name].public),
);

export const PublicStatisticsUnknownMediaTypeController = unknownMediaTypeController(
  'v1/users/:name/statistics',
  {
    get: { method: RequestMethod.GET, path: ':mediaType', endpoint: STATISTICS_ENDPOINTS.public },
  },
);
