import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  Req,
  UseGuards,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiQuery,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ApiValidationPipe } from '../common/api-validation.pipe';
import { ProblemException } from '../common/problem';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { JsonBodyGuard } from '../common/json-body.guard';
import {
  CreatedScrobblerView,
  CreateScrobblerDto,
  PutScrobbleMappingDto,
  ScrobbleMappingView,
  ScrobblerView,
  UnmatchedScrobbleView,
} from './scrobblers.dto';
import { ScrobblersService } from './scrobblers.service';
import { ScrobblingService } from './scrobbling.service';

/** Each route its own rate-limit row (contract §5). */
export const SCROBBLING_ENDPOINTS = {
  create: 'scrobblers.create',
  list: 'scrobblers.list',
  delete: 'scrobblers.delete',
  secret: 'scrobblers.secret',
  unmatched: 'scrobblers.unmatched',
  putMapping: 'scrobble-mappings.put',
  listMappings: 'scrobble-mappings.list',
  deleteMapping: 'scrobble-mappings.delete',
} as const;

const SUCCESS = { success: true } as const;

/** The service's origin as the caller reached it (Host, or the forwarded headers under TRUST_PROXY). */
function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

@ApiTags('scrobbling')
@Controller('v1/my/scrobblers')
@Scopes(SCOPES.anime)
export class ScrobblersController {
  constructor(
    private readonly scrobblers: ScrobblersService,
    private readonly scrobbling: ScrobblingService,
  ) {}

  @Post()
  @HttpCode(201)
  @RateLimited(SCROBBLING_ENDPOINTS.create)
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    operationId: 'createScrobbler',
    summary: 'Connect a media server',
    description:
      'The answer carries the URL to give the media server (`POST /scrobble/{secret}`); its secret is shown only here. At most 20 per user (then 409). A generic scrobbler created by a token that also holds `ratings.manga` may write manga.',
  })
  @ApiBody({
    type: CreateScrobblerDto,
    examples: {
      jellyfin: { value: { kind: 'jellyfin', name: 'Living room', server_user: 'alice' } },
      generic: { value: { kind: 'generic', name: 'My script', rewatches: true } },
    },
  })
  @ApiCreatedResponse({ type: CreatedScrobblerView })
  @ApiBadRequestResponse({
    description: 'A member is unknown or wrong; `server_user` for kodi or generic',
  })
  @ApiConflictResponse({ description: 'You already have 20 scrobblers' })
  @ApiUnsupportedMediaTypeResponse({ description: 'Content-Type is not application/json' })
  create(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ApiValidationPipe({ expectedType: CreateScrobblerDto })) body: CreateScrobblerDto,
    @Req() request: FastifyRequest,
  ): Promise<CreatedScrobblerView> {
    return this.scrobblers.create(user, body, originOf(request));
  }

  @Get()
  @RateLimited(SCROBBLING_ENDPOINTS.list)
  @ApiOperation({ operationId: 'listScrobblers', summary: 'Your scrobblers (without their URLs)' })
  @ApiOkResponse({ type: [ScrobblerView] })
  list(@CurrentUser() user: AuthenticatedUser): Promise<ScrobblerView[]> {
    return this.scrobblers.list(user.id);
  }

  @Get('unmatched')
  @RateLimited(SCROBBLING_ENDPOINTS.unmatched)
  @ApiOperation({
    operationId: 'listUnmatchedScrobbles',
    summary: 'What your media servers sent that matched no title',
    description:
      'One item per (media type, series, season), newest first; kept 90 days, at most 1,000 requests. A mapping (PUT /v1/my/scrobble-mappings) applies them.',
  })
  @ApiOkResponse({ type: [UnmatchedScrobbleView] })
  unmatched(@CurrentUser() user: AuthenticatedUser): Promise<UnmatchedScrobbleView[]> {
    return this.scrobbling.unmatched(user.id);
  }

  @Delete(':id')
  @RateLimited(SCROBBLING_ENDPOINTS.delete)
  @ApiOperation({ operationId: 'deleteScrobbler', summary: 'Disconnect a media server' })
  @ApiOkResponse({ schema: { example: SUCCESS } })
  @ApiNotFoundResponse({ description: 'No scrobbler of yours has this id' })
  async remove(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
  ): Promise<typeof SUCCESS> {
    await this.scrobblers.remove(user.id, id);
    return SUCCESS;
  }

  @Post(':id/secret')
  @HttpCode(200)
  @RateLimited(SCROBBLING_ENDPOINTS.secret)
  @ApiOperation({
    operationId: 'rotateScrobblerSecret',
    summary: 'Replace the secret of a scrobbler: the old URL is refused at once',
  })
  @ApiOkResponse({ type: CreatedScrobblerView })
  @ApiNotFoundResponse({ description: 'No scrobbler of yours has this id' })
  rotate(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
  ): Promise<CreatedScrobblerView> {
    return this.scrobblers.rotate(user.id, id, originOf(request));
  }
}

@ApiTags('scrobbling')
@Controller('v1/my/scrobble-mappings')
@Scopes(SCOPES.anime)
export class ScrobbleMappingsController {
  constructor(private readonly scrobbling: ScrobblingService) {}

  @Put()
  @HttpCode(200)
  @RateLimited(SCROBBLING_ENDPOINTS.putMapping)
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    operationId: 'putScrobbleMapping',
    summary: 'Say which title a series (and season) of your media server is',
    description:
      'Future scrobbles of that series and season go to the title with episode + episode_offset; the unmatched requests of that key are applied now, in the order they arrived (never starting a rewatch, never lowering progress, dated the day they arrived). A `manga` mapping needs the `ratings.manga` scope as well (403 otherwise).',
  })
  @ApiBody({
    type: PutScrobbleMappingDto,
    examples: {
      season: {
        value: { series: 'Shingeki no Kyojin', season: 2, title_id: 25, episode_offset: 0 },
      },
    },
  })
  @ApiOkResponse({ type: ScrobbleMappingView })
  @ApiBadRequestResponse({ description: 'A member is unknown or wrong' })
  @ApiNotFoundResponse({ description: 'No title of that media type has this id' })
  @ApiUnsupportedMediaTypeResponse({ description: 'Content-Type is not application/json' })
  put(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ApiValidationPipe({ expectedType: PutScrobbleMappingDto }))
    body: PutScrobbleMappingDto,
  ): Promise<ScrobbleMappingView> {
    return this.scrobbling.putMapping(user, body);
  }

  @Get()
  @RateLimited(SCROBBLING_ENDPOINTS.listMappings)
  @ApiOperation({ operationId: 'listScrobbleMappings', summary: 'Your mappings' })
  @ApiOkResponse({ type: [ScrobbleMappingView] })
  list(@CurrentUser() user: AuthenticatedUser): Promise<ScrobbleMappingView[]> {
    return this.scrobbling.mappings(user.id);
  }

  @Delete()
  @RateLimited(SCROBBLING_ENDPOINTS.deleteMapping)
  @ApiOperation({ operationId: 'deleteScrobbleMapping', summary: 'Forget a mapping' })
  @ApiQuery({ name: 'series', required: true, example: 'Shingeki no Kyojin' })
  @ApiQuery({
    name: 'season',
    required: false,
    type: Number,
    description: 'Absent: the mapping of season null',
  })
  @ApiQuery({
    name: 'media_type',
    required: false,
    enum: ['anime', 'manga'],
    description: 'Default anime',
  })
  @ApiOkResponse({ schema: { example: SUCCESS } })
  @ApiNotFoundResponse({ description: 'No such mapping' })
  async remove(
    @CurrentUser() user: AuthenticatedUser,
    @Query() query: Record<string, unknown>,
  ): Promise<typeof SUCCESS> {
    const { series, season, mediaType } = mappingQuery(query);
    await this.scrobbling.deleteMapping(user.id, series, season, mediaType);
    return SUCCESS;
  }
}

function mappingQuery(query: Record<string, unknown>): {
  series: string;
  season: number | null;
  mediaType: 'anime' | 'manga';
} {
  const errors: { field: string; message: string }[] = [];
  const { series, season, media_type: mediaType } = query;
  if (typeof series !== 'string' || series.length < 1 || [...series].length > 500) {
    errors.push({ field: 'series', message: 'must be given once, 1 to 500 characters' });
  }
  if (season !== undefined && (typeof season !== 'string' || !/^\d{1,9}$/.test(season))) {
    errors.push({ field: 'season', message: 'must be a non-negative integer' });
  }
  if (mediaType !== undefined && mediaType !== 'anime' && mediaType !== 'manga') {
    errors.push({ field: 'media_type', message: 'must be anime or manga' });
  }
  if (errors.length > 0)
    throw ProblemException.validation(errors, {
      slug: 'invalid-parameter',
      title: 'Invalid request parameter',
    });
  return {
    series: series as string,
    season: season === undefined ? null : Number(season),
    mediaType: (mediaType as 'anime' | 'manga' | undefined) ?? 'anime',
  };
}
