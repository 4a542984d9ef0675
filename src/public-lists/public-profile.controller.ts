import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Scopes } from '../auth/auth.decorators';
import { SCOPES } from '../auth/scopes';
import { MEDIA_TYPES } from '../media-types/media-type';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { sendTaggedBody } from '../conditional-reads/reply';
import { ProfileStatisticsService } from '../profile/profile-statistics.service';
import { ProfileView } from '../profile/profile.dto';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { RatingsService } from '../ratings/ratings.service';
import { UsersService } from '../users/users.service';
import { PUBLIC_ENDPOINTS } from './public-lists.errors';
import { findPublicOwner, OwnerNameParam } from './public-owner';

/** Another user's public profile (contract §18): statistics over their visible entries only. */
@ApiTags('public lists')
@Controller('v1/users/:name/profile')
export class PublicProfileController {
  constructor(
    private readonly users: UsersService,
    private readonly ratings: RatingsService,
    private readonly statistics: ProfileStatisticsService,
  ) {}

  @Get()
  @Scopes(SCOPES.profile)
  @RateLimited(PUBLIC_ENDPOINTS.profile)
  @ApiOperation({
    operationId: 'getPublicProfile',
    summary: "Another user's public profile: statistics over their visible entries",
    description:
      "Only when the operator set PUBLIC_LISTS=true (otherwise 404). `id`, `name`, `joined_at` and the statistics of your own profile, computed the same way over the entries the user marked `is_visible: true` only: private entries count nowhere. Any user's token with the `user.profile` scope may read it. The ETag moves only when this body changes.",
  })
  @OwnerNameParam()
  @ConditionalRead({ type: ProfileView })
  async get(
    @Param('name') name: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const owner = await findPublicOwner(this.users, name);
    const versions = await this.ratings.publicVersions(owner.id);
    const statistics = await this.statistics.forPublicView(
      owner.id,
      [owner.createdAt, ...MEDIA_TYPES.map((mediaType) => versions[mediaType])].join(':'),
    );
    // Tagged by the body itself: a write that changes the public list but none of these numbers
    // (a visible entry's dates, say) leaves the public profile's ETag as it was.
    await sendTaggedBody(
      request,
      reply,
      {
        userId: owner.id,
        view: 'public',
        endpoint: PUBLIC_ENDPOINTS.profile,
        mediaType: null,
        query: {},
      },
      {
        id: owner.id,
        name,
        joined_at: owner.createdAt,
        statistics,
      } satisfies ProfileView,
    );
  }
}
