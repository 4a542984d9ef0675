import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { isAuthenticatedRoute } from './auth.decorators';
import { IpDenialService } from './ip-denial.service';
import { buildBlocklist, USER_AGENT_EXAMPLE, userAgentRejection } from './user-agent-policy';

/** Step 2 of decisions §2: the caller must name its application in the User-Agent. */
@Injectable()
export class UserAgentGuard implements CanActivate {
  private readonly blocklist: ReadonlySet<string>;

  constructor(
    private readonly reflector: Reflector,
    private readonly denial: IpDenialService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.blocklist = buildBlocklist(config.userAgent.blocklist);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!isAuthenticatedRoute(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const rejection = userAgentRejection(request.headers['user-agent'], this.blocklist);
    if (rejection === null) return true;
    await this.denial.recordRejectedUserAgent(request.ip);
    throw ProblemException.of(
      403,
      PROBLEMS.userAgent,
      `Rejected: ${rejection}. Identify your application as <AppName>/<version> (<contact>), e.g. "${USER_AGENT_EXAMPLE}"`,
    );
  }
}
