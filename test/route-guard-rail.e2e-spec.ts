import { Controller, Get, INestApplicationContext, Put, RequestMethod } from '@nestjs/common';
import { PATH_METADATA, METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, ModulesContainer, Reflector } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Scopes } from '../src/auth/auth.decorators';
import { RATE_LIMIT_KEY, REQUIRED_SCOPE_KEY } from '../src/common/route-metadata';
import { SCOPES } from '../src/auth/scopes';
import { RateLimited } from '../src/rate-limit/rate-limited.decorator';
import { UnknownMediaTypeController } from '../src/ratings/unknown-media-type.controller';
import { UnknownMediaTypeChangesController } from '../src/sync/sync.controller';
import { UnknownMediaTypeListsController } from '../src/mal-lists/mal-lists.controller';
import { PublicListUnknownMediaTypeController } from '../src/public-lists/public-lists.controller';
import { UnknownMediaTypeHistoryController } from '../src/history/history.controller';
import { StatisticsUnknownMediaTypeController } from '../src/statistics/statistics.controller';
import { PublicStatisticsUnknownMediaTypeController } from '../src/public-lists/public-statistics.controller';
import { CardsController } from '../src/cards/cards.controller';
import { createTestApp } from './utils/test-app';

/**
 * Issue 11, item 6: a `/v1` route without `@Scopes` or `@RateLimited` would be served without its
 * scope check or without limits. Every route Nest discovered is checked here.
 */

/** Routes that answer 404 before the scope step (contract §2 step 4): no scope applies. */
const WITHOUT_SCOPE: readonly unknown[] = [
  UnknownMediaTypeController,
  UnknownMediaTypeChangesController,
  UnknownMediaTypeListsController,
  PublicListUnknownMediaTypeController,
  UnknownMediaTypeHistoryController,
  StatisticsUnknownMediaTypeController,
  PublicStatisticsUnknownMediaTypeController,
];

/**
 * Routes outside the pipeline by contract: the card (contract §22) needs no token and is limited
 * per user name by its own counter (cards.controller.ts).
 */
const OUTSIDE_PIPELINE: readonly unknown[] = [CardsController];

interface Route {
  method: string;
  path: string;
  missing: string[];
}

function joinPath(...parts: (string | undefined)[]): string {
  return parts
    .filter((part): part is string => typeof part === 'string' && part !== '' && part !== '/')
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .join('/');
}

/** Every route of every controller, with the guard-rail decorators it lacks. */
function discoverRoutes(app: INestApplicationContext): Route[] {
  const reflector = app.get(Reflector);
  const scanner = new MetadataScanner();
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const routes: Route[] = [];
  for (const wrapper of discovery.getControllers()) {
    const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
    if (!controller || OUTSIDE_PIPELINE.includes(controller)) continue;
    const prototype = controller.prototype as Record<string, unknown>;
    for (const name of scanner.getAllMethodNames(prototype)) {
      const handler = prototype[name] as (...args: unknown[]) => unknown;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (path === undefined) continue;
      const missing: string[] = [];
      const scope: unknown = reflector.getAllAndOverride(REQUIRED_SCOPE_KEY, [handler, controller]);
      if (!scope && !WITHOUT_SCOPE.includes(controller)) missing.push('@Scopes');
      if (!reflector.get(RATE_LIMIT_KEY, handler)) missing.push('@RateLimited');
      routes.push({
        method: RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod],
        path: `/${joinPath(Reflect.getMetadata(PATH_METADATA, controller) as string, path)}`,
        missing,
      });
    }
  }
  return routes;
}

const undecorated = (routes: Route[]) =>
  routes
    .filter((route) => route.path.startsWith('/v1/') && route.missing.length > 0)
    .map((route) => `${route.path} (${route.method}) lacks ${route.missing.join(' and ')}`);

@Controller('v1/throwaway')
class ThrowawayController {
  @Get('forgotten')
  forgotten(): void {}

  @Put('no-limits')
  @Scopes(SCOPES.profile)
  noLimits(): void {}

  @Get('complete')
  @Scopes(SCOPES.profile)
  @RateLimited('throwaway')
  complete(): void {}
}

@Controller('outside')
class OutsideController {
  @Get()
  open(): void {}
}

describe('guard rail: every /v1 route has @Scopes and @RateLimited', () => {
  let app: NestFastifyApplication;

  beforeAll(async () => {
    // Every optional module on, so that its routes are checked too.
    app = await createTestApp({ PUBLIC_LISTS: 'true', PUBLIC_CARDS: 'true' });
  });

  afterAll(async () => {
    await app.close();
  });

  it('finds the API routes and none of them lacks a decorator', () => {
    const routes = discoverRoutes(app);
    const api = routes.filter((route) => route.path.startsWith('/v1/'));
    // The four rating endpoints for anime, manga and unknown media types, and the profile.
    expect(api.length).toBeGreaterThanOrEqual(13);
    expect(api.map((route) => route.path)).toEqual(
      expect.arrayContaining([
        '/v1/my/anime/:id/ratings',
        '/v1/my/manga/ratings',
        '/v1/my/:mediaType/:id/ratings',
        '/v1/my/profile',
        '/v1/users/:name/anime/ratings',
        '/v1/users/:name/:mediaType/ratings',
      ]),
    );
    expect(undecorated(routes)).toEqual([]);
  });

  it('reports a route that lacks either decorator, and only under /v1', async () => {
    const moduleRef = await Test.createTestingModule({
      controllers: [ThrowawayController, OutsideController],
    }).compile();
    try {
      expect(undecorated(discoverRoutes(moduleRef))).toEqual([
        '/v1/throwaway/forgotten (GET) lacks @Scopes and @RateLimited',
        '/v1/throwaway/no-limits (PUT) lacks @RateLimited',
      ]);
    } finally {
      await moduleRef.close();
    }
  });
});
