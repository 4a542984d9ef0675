import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AUTHENTICATED_KEY,
  RATE_LIMIT_KEY,
  REQUIRED_SCOPE_KEY,
  type RateLimitedRoute,
} from './route-metadata';

/** What the global guards of contract §2 need to know about a route, from its decorators. */
export interface RouteFacts {
  /** `@Authenticated()` (or `@Scopes`): steps 1–3 apply. */
  readonly authenticated: boolean;
  /** `@Scopes`: step 5 applies. */
  readonly scope: string | undefined;
  /** The endpoint row of `@RateLimited` when the route is counted: step 6 applies. */
  readonly rateLimitEndpoint: string | undefined;
}

const reflector = new Reflector();
/** By controller class, then handler: decorators are fixed once the classes exist. */
const factsByClass = new WeakMap<object, WeakMap<object, RouteFacts>>();

/**
 * The route's facts, read through the reflector on its first request and kept, so that the five
 * global guards do not each read metadata on every request.
 */
export function routeFacts(context: ExecutionContext): RouteFacts {
  const controller = context.getClass();
  const handler = context.getHandler();
  let byHandler = factsByClass.get(controller);
  if (byHandler === undefined) {
    byHandler = new WeakMap();
    factsByClass.set(controller, byHandler);
  }
  let facts = byHandler.get(handler);
  if (facts === undefined) {
    facts = readFacts(controller, handler);
    byHandler.set(handler, facts);
  }
  return facts;
}

function readFacts(controller: object, handler: object): RouteFacts {
  const targets = [handler, controller] as (() => void)[];
  const rateLimit = reflector.get<RateLimitedRoute | undefined>(
    RATE_LIMIT_KEY,
    handler as () => void,
  );
  return Object.freeze({
    authenticated: reflector.getAllAndOverride<boolean>(AUTHENTICATED_KEY, targets) === true,
    scope: reflector.getAllAndOverride<string | undefined>(REQUIRED_SCOPE_KEY, targets),
    rateLimitEndpoint: rateLimit?.counted ? rateLimit.endpoint : undefined,
  });
}
