import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { routeFacts } from '../common/route-facts';
import { IpDenialService } from './ip-denial.service';

/** Step 1 of contract §2: a denied address gets 403 with Retry-After, whatever it sends. */
@Injectable()
export class IpDenialGuard implements CanActivate {
  constructor(private readonly denial: IpDenialService) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (!routeFacts(context).authenticated) return true;
    return this.check(context.switchToHttp().getRequest<FastifyRequest>());
  }

  private async check(request: FastifyRequest): Promise<boolean> {
    const remainingMs = await this.denial.deniedForMs(request.ip);
    if (remainingMs <= 0) return true;
    const retryAfter = Math.max(1, Math.ceil(remainingMs / 1000));
    throw ProblemException.of(
      403,
      PROBLEMS.ipDenied,
      `This address sent too many requests without a valid User-Agent and is denied for ${retryAfter} more seconds`,
      { 'Retry-After': String(retryAfter) },
    );
  }
}
