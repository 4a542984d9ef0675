import { createHash } from 'node:crypto';
import { Controller, Get, Param, Req, Res } from '@nestjs/common';
import {
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
  ApiTooManyRequestsResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { entityTag, ifNoneMatchMatches } from '../conditional-reads/entity-tag';
import { CounterStore } from '../counters/counter-store';
import { DESCRIPTOR_LIST } from '../media-types';
import { SettingsService } from '../settings/settings.service';
import { StatisticsService } from '../statistics/statistics.service';
import { UsersService } from '../users/users.service';
import { renderCard, type CardColumn } from './card-svg';

export const CARD_ENDPOINT = 'card';
/** Per user name, not per address: image proxies fetch from a few addresses (contract §22). */
export const CARD_RATE_LIMIT = { limit: 600, windowMs: 10 * 60_000 } as const;
export const CARD_HEADERS = {
  'Content-Type': 'image/svg+xml',
  'Cache-Control': 'public, max-age=3600',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'",
} as const;

const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="495" height="195" viewBox="0 0 495 195" role="img" aria-label="alice: anime and manga statistics">…<text class="name" x="24" y="42">alice</text>…</svg>';

/**
 * A user's public card (contract §22): outside the /v1 pipeline (no token, no User-Agent rule, no
 * IP denial), since browsers and image proxies fetch it. AppModule imports it only with
 * PUBLIC_CARDS=true; the user's `card` setting is the second consent. Every refusal is the body of
 * an unknown path, so that nobody learns which names exist.
 */
@ApiTags('public lists')
@Controller('v1/users/:name')
export class CardsController {
  constructor(
    private readonly users: UsersService,
    private readonly settings: SettingsService,
    private readonly statistics: StatisticsService,
    private readonly counters: CounterStore,
  ) {}

  @Get('card.svg')
  @ApiOperation({
    operationId: 'getCard',
    summary: "A user's statistics card, an SVG image to embed anywhere",
    description:
      "No token, User-Agent or address rule: browsers and image proxies fetch it. Only when the operator set PUBLIC_CARDS=true and the user set `card: true` in their settings; otherwise, and for a name no user has, the same 404 as an unknown path. A 495×195 image with the user's name and, per media type, the entries being watched/read, completed, the mean score on a 10-point scale (one decimal; – when nothing is scored) and the hours, from visible entries only. Rate-limited per user name: 600 requests per 10 minutes.",
    security: [],
  })
  @ApiParam({
    name: 'name',
    description: "The user's name, percent-encoded; compared exactly",
    example: 'alice',
  })
  @ApiOkResponse({
    description:
      "The card. `Cache-Control: public, max-age=3600`, `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'`, `ETag`.",
    content: { 'image/svg+xml': { schema: { type: 'string' }, example: EXAMPLE_SVG } },
    headers: {
      ETag: { description: 'Stands for this image', schema: { type: 'string' } },
      'Cache-Control': { description: '`public, max-age=3600`', schema: { type: 'string' } },
      'Content-Security-Policy': {
        description: "`default-src 'none'; style-src 'unsafe-inline'`",
        schema: { type: 'string' },
      },
    },
  })
  @ApiResponse({ status: 304, description: 'Not modified: If-None-Match holds the ETag' })
  @ApiNotFoundResponse({
    description: 'PUBLIC_CARDS off, no user of that name, or a user without the card: one answer',
  })
  @ApiTooManyRequestsResponse({
    description: 'More than 600 requests for this name within 10 minutes; carries Retry-After',
  })
  async card(
    @Param('name') name: string,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const key = `rate:${CARD_ENDPOINT}:name:${createHash('sha256').update(name).digest('base64url')}`;
    const window = await this.counters.hit(key, CARD_RATE_LIMIT.windowMs);
    const resetSeconds = Math.max(1, Math.ceil(window.resetMs / 1000));
    const budget = {
      'RateLimit-Limit': String(CARD_RATE_LIMIT.limit),
      'RateLimit-Remaining': String(Math.max(0, CARD_RATE_LIMIT.limit - window.count)),
      'RateLimit-Reset': String(resetSeconds),
    };
    if (window.count > CARD_RATE_LIMIT.limit) {
      void reply.headers(budget);
      const retryAfter = resetSeconds;
      throw ProblemException.of(
        429,
        PROBLEMS.rateLimited,
        `More than ${CARD_RATE_LIMIT.limit} requests for this card within 10 minutes: retry in ${retryAfter} seconds`,
        { 'Retry-After': String(retryAfter) },
      );
    }
    // The body of an unknown path (the framework's own 404), for every refusal alike.
    const refused = () => ProblemException.notFound(`Cannot GET ${request.url}`);
    const owner = await this.users.findByExactName(name);
    if (!owner) throw refused();
    if (!(await this.settings.get(owner.id)).card) throw refused();
    // Only now: a refusal must not differ from the 404 that PUBLIC_CARDS=false gives.
    void reply.headers(budget);

    const totals = await this.statistics.publicTotals(owner);
    const columns: CardColumn[] = DESCRIPTOR_LIST.map(({ name: mediaType, statistics }) => {
      const numbers = totals[mediaType] as Record<string, number>;
      return {
        mediaType,
        ongoingLabel: statistics.ongoing,
        ongoing: numbers[statistics.ongoing],
        completed: numbers.completed,
        average: numbers.average,
        mediaMinutes: numbers.media_minutes ?? 0,
      };
    });
    const svg = renderCard(name, columns);
    const etag = entityTag({
      userId: owner.id,
      view: 'public',
      endpoint: CARD_ENDPOINT,
      mediaType: null,
      query: {},
      data: [owner.createdAt, 'body', svg],
    });
    void reply.headers({ ...CARD_HEADERS, ETag: etag });
    if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) {
      reply.removeHeader('Content-Type');
      await reply.status(304).send();
      return;
    }
    await reply.send(svg);
  }
}
