/*
 * The metadata keys of the pipeline's route decorators (contract §2): written by @Authenticated,
 * @Scopes (auth) and @RateLimited (rate-limit), read by every global guard (route-facts.ts).
 */

export const AUTHENTICATED_KEY = 'auth:authenticated';
export const REQUIRED_SCOPE_KEY = 'auth:required-scope';
export const RATE_LIMIT_KEY = 'rate-limit:endpoint';

/** What `@RateLimited` records, on the handler and in the Fastify route's `config`. */
export interface RateLimitedRoute {
  /** The endpoint row whose budgets the route shares. */
  endpoint: string;
  /** false: the route always refuses before step 6 of contract §2, so it only shows the budget. */
  counted: boolean;
}
