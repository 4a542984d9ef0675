import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ProblemException } from '../common/problem';
import { toIsoSeconds } from '../common/timestamps';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { VersionedReads } from '../conditional-reads/versioned-reads';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import type { User } from '../users/user.entity';
import { UsersService } from '../users/users.service';
import { ProfileStatisticsService } from './profile-statistics.service';
import { ProfileView } from './profile.dto';

const PROFILE_ENDPOINT = 'profile';

@ApiTags('profile')
@Controller('v1/my/profile')
export class ProfileController {
  constructor(
    private readonly users: UsersService,
    private readonly statistics: ProfileStatisticsService,
    private readonly versionedReads: VersionedReads,
  ) {}

  @Get()
  @Scopes(SCOPES.profile)
  @RateLimited(PROFILE_ENDPOINT)
  @ApiOperation({ summary: 'Your profile with list statistics (private entries included)' })
  @ConditionalRead({ type: ProfileView })
  async get(
    @CurrentUser() current: AuthenticatedUser,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    let user: User | null = null;
    // The list version moves with every write of either list and with catalog updates of the
    // titles they hold: the statistics are the same while it stays.
    const version = async () => {
      user = await this.users.findById(current.id);
      if (!user) throw ProblemException.notFound('The user of this token no longer exists');
      return [toIsoSeconds(user.createdAt), user.name, user.listVersion];
    };
    await this.versionedReads.send(
      request,
      reply,
      { userId: current.id, view: 'own', endpoint: PROFILE_ENDPOINT, mediaType: null, query: {} },
      version,
      async () => {
        const read = user!;
        const statistics = await this.statistics.forUser(read);
        return {
          id: read.id,
          name: read.name,
          joined_at: toIsoSeconds(read.createdAt),
          statistics,
        } satisfies ProfileView;
      },
    );
  }
}
