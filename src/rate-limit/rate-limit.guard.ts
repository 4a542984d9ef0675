import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import type { ThrottlerRequest } from '@nestjs/throttler/dist/throttler.guard.interface';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { RATE_LIMIT_ENDPOINT_KEY } from './rate-limited.decorator';

interface WindowState {
  limit: number;
  remaining: number;
  resetSeconds: number;
  blocked: boolean;
}

/** The counter of one window: endpoint row, throttler ('user' or 'ip'), who is counted. */
export function rateLimitKey(endpoint: string, throttlerName: string, tracker: string): string {
  return `${endpoint}:${throttlerName}:${tracker}`;
}

/**
 * Step 6 of decisions §2. The stock guard stops at the first exhausted throttler and writes one
 * header set per throttler; the contract wants every window counted and one `RateLimit-*` set:
 * the window with the least left.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  private readonly windows = new WeakMap<object, WindowState[]>();

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.endpointOf(context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    this.windows.set(request, []);
    await super.canActivate(context);
    const windows = this.windows.get(request) ?? [];
    this.windows.delete(request);
    if (windows.length === 0) return true;

    const tightest = windows.reduce((a, b) =>
      b.remaining < a.remaining || (b.remaining === a.remaining && b.resetSeconds > a.resetSeconds)
        ? b
        : a,
    );
    const headers: Record<string, string> = {
      'RateLimit-Limit': String(tightest.limit),
      'RateLimit-Remaining': String(tightest.remaining),
      'RateLimit-Reset': String(tightest.resetSeconds),
    };
    const blocked = windows.filter((w) => w.blocked);
    if (blocked.length === 0) {
      void context.switchToHttp().getResponse<FastifyReply>().headers(headers);
      return true;
    }
    const retryAfter = Math.max(1, ...blocked.map((w) => w.resetSeconds));
    throw ProblemException.of(
      429,
      PROBLEMS.rateLimited,
      `Rate limit of ${blocked[0].limit} requests exceeded for this endpoint; retry in ${retryAfter} seconds`,
      { ...headers, 'Retry-After': String(retryAfter) },
    );
  }

  protected override async handleRequest(request: ThrottlerRequest): Promise<boolean> {
    const { context, limit, ttl, throttler, blockDuration, getTracker, generateKey } = request;
    const req = context.switchToHttp().getRequest<FastifyRequest>();
    const tracker = await getTracker(req, context);
    const key = generateKey(context, tracker, throttler.name ?? 'default');
    const record = await this.storageService.increment(
      key,
      ttl,
      limit,
      blockDuration,
      throttler.name ?? 'default',
    );
    this.windows.get(req)?.push({
      limit,
      remaining: Math.max(0, limit - record.totalHits),
      resetSeconds: record.timeToExpire,
      blocked: record.isBlocked,
    });
    return true;
  }

  protected override generateKey(
    context: ExecutionContext,
    tracker: string,
    throttlerName: string,
  ): string {
    return rateLimitKey(this.endpointOf(context) ?? '', throttlerName, tracker);
  }

  private endpointOf(context: ExecutionContext): string | undefined {
    return this.reflector.getAllAndOverride<string | undefined>(RATE_LIMIT_ENDPOINT_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
  }
}
