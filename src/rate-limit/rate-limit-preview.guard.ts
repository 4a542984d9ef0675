import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { CounterStore } from '../counters/counter-store';
import { counterKey } from './counter-throttler.storage';
import { rateLimitKey } from './rate-limit.guard';
import { RATE_LIMIT_ENDPOINT_KEY } from './rate-limited.decorator';

/**
 * Runs first, so that responses refused before the rate limits (steps 1-5 of decisions §2) also
 * carry the `RateLimit-*` headers (§5: every response of a rate-limited endpoint). It only reads
 * the client address's window: such requests are not counted, and no user is known yet.
 * RateLimitGuard overwrites the headers for requests that reach it.
 */
@Injectable()
export class RateLimitPreviewGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly counters: CounterStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const endpoint = this.reflector.getAllAndOverride<string | undefined>(RATE_LIMIT_ENDPOINT_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!endpoint) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { limit, windowSeconds } = this.config.rateLimit.ip;
    const window = await this.counters.peek(
      counterKey(rateLimitKey(endpoint, 'ip', `ip:${request.ip}`)),
    );
    void context
      .switchToHttp()
      .getResponse<FastifyReply>()
      .headers({
        'RateLimit-Limit': String(limit),
        'RateLimit-Remaining': String(Math.max(0, limit - (window?.count ?? 0))),
        'RateLimit-Reset': String(
          window ? Math.max(1, Math.ceil(window.resetMs / 1000)) : windowSeconds,
        ),
      });
    return true;
  }
}
