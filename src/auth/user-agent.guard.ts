import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { IpDenialService, RejectionOutcome } from './ip-denial.service';
import {
  applicationIdentity,
  buildBlocklist,
  USER_AGENT_EXAMPLE,
  userAgentRejection,
} from './user-agent-policy';

/** Step 2 of contract §2: the caller must name its application in the User-Agent. */
@Injectable()
export class UserAgentGuard implements CanActivate {
  private readonly blocklist: ReadonlySet<string>;

  constructor(
    private readonly denial: IpDenialService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.blocklist = buildBlocklist(config.userAgent.blocklist);
  }

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!routeFacts(context).authenticated) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const identity = applicationIdentity(request.headers);
    const rejection = userAgentRejection(identity.value, this.blocklist, identity.header);
    if (rejection === null) return true;
    return this.refuse(request, rejection);
  }

  private async refuse(request: FastifyRequest, rejection: string): Promise<never> {
    const outcome = await this.denial.recordRejectedUserAgent(request.ip);
    throw ProblemException.of(
      403,
      PROBLEMS.userAgent,
      `Rejected: ${rejection}. Identify your application as <AppName>/<version> (<contact>) in User-Agent (browsers: in Api-User-Agent), e.g. "${USER_AGENT_EXAMPLE}".${consequence(outcome)}`,
    );
  }
}

/** What repeated rejections lead to, so that a caller can stop before its address is denied. */
export function consequence(outcome: RejectionOutcome): string {
  switch (outcome.kind) {
    case 'off':
      return '';
    case 'counting':
      return ` After ${outcome.remaining} more rejected request${outcome.remaining === 1 ? '' : 's'} from this address within ${outcome.windowSeconds} seconds, it is denied every request for ${outcome.denySeconds} seconds.`;
    case 'denied':
      return ` Too many rejected requests: this address is now denied every request for ${outcome.denySeconds} seconds.`;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}
