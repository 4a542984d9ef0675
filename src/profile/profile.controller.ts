import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ProblemException } from '../common/problem';
import { toIsoSeconds } from '../common/timestamps';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { UsersService } from '../users/users.service';
import { ProfileStatisticsService } from './profile-statistics.service';
import { ProfileView } from './profile.dto';

@ApiTags('profile')
@Controller('v1/my/profile')
export class ProfileController {
  constructor(
    private readonly users: UsersService,
    private readonly statistics: ProfileStatisticsService,
  ) {}

  @Get()
  @Scopes(SCOPES.profile)
  @RateLimited('profile')
  @ApiOperation({ summary: 'Your profile with list statistics (private entries included)' })
  @ApiOkResponse({ type: ProfileView })
  async get(@CurrentUser() current: AuthenticatedUser): Promise<ProfileView> {
    const user = await this.users.findById(current.id);
    if (!user) throw ProblemException.notFound('The user of this token no longer exists');
    const statistics = await this.statistics.forUser(user);
    return { id: user.id, name: user.name, joined_at: toIsoSeconds(user.createdAt), statistics };
  }
}
