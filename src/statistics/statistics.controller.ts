import { Controller, Get, Req, RequestMethod, Res, type Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ProblemException } from '../common/problem';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { DESCRIPTOR_LIST } from '../media-types';
import { capitalized, type MediaType } from '../media-types/media-type';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import { UsersService } from '../users/users.service';
import { STATISTICS_BODY_VIEWS, statisticsExample } from './statistics.dto';
import { StatisticsService } from './statistics.service';

/** The rate-limit rows of the statistics: anime and manga share each (contract §5). */
export const STATISTICS_ENDPOINTS = {
  own: 'statistics',
  public: 'public.statistics',
} as const;

function statisticsControllerFor(mediaType: MediaType, view: Type<unknown>) {
  @ApiTags('statistics')
  @Controller(`v1/my/statistics/${mediaType}`)
  @Scopes(SCOPES.profile)
  class StatisticsController {
    constructor(
      readonly users: UsersService,
      readonly statistics: StatisticsService,
    ) {}

    @Get()
    @RateLimited(STATISTICS_ENDPOINTS.own)
    @ApiOperation({
      operationId: `get${capitalized(mediaType)}Statistics`,
      summary: `Statistics of your ${mediaType} list, private entries included`,
      description:
        "The profile's totals, the score histogram, the entries per status, by year, season, format and tag of their titles (from the catalog), and your activity month by month from the history (months of your time zone, see settings). See docs/statistics.md for every definition. The ETag moves when the body changes: a write, a history event deleted, a catalog update of a fact it uses, a new month.",
    })
    @ConditionalRead({ type: view, example: statisticsExample(mediaType, 'own') })
    async get(
      @CurrentUser() current: AuthenticatedUser,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const user = await this.users.findById(current.id);
      if (!user) throw ProblemException.notFound('The user of this token no longer exists');
      const body = await this.statistics.own(user, mediaType);
      // Tagged by the body: while it stays the same (another user's write, a write that moves
      // none of these numbers), so does the ETag.
      await sendTaggedBody(
        request,
        reply,
        {
          userId: user.id,
          view: 'own',
          endpoint: STATISTICS_ENDPOINTS.own,
          mediaType,
          query: {},
        },
        body,
      );
    }
  }
  return StatisticsController;
}

export const STATISTICS_CONTROLLERS = DESCRIPTOR_LIST.map((descriptor) =>
  statisticsControllerFor(descriptor.name, STATISTICS_BODY_VIEWS[descriptor.name].own),
);

export const StatisticsUnknownMediaTypeController = unknownMediaTypeController('v1/my/statistics', {
  get: { method: RequestMethod.GET, path: ':mediaType', endpoint: STATISTICS_ENDPOINTS.own },
});
