import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { admissionOf } from './scrobble-receiver.http';
import { ScrobbleOutcomeView } from './scrobblers.dto';
import { ScrobblingService, type ScrobbleAnswer } from './scrobbling.service';

/**
 * POST /scrobble/{secret}: called by media servers, outside the /v1 pipeline (no bearer token, no
 * User-Agent rule, no IP denial); its own limits: 120 requests per minute per secret, 2 MiB.
 * Its secret, rate limit and Content-Type are checked before the body is read
 * (configureScrobbleReceiver); the handler reads the body and applies it.
 */
@ApiTags('scrobbling')
@Controller('scrobble')
export class ScrobbleReceiverController {
  constructor(private readonly scrobbling: ScrobblingService) {}

  @Post(':secret')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'scrobble',
    summary: "Receive a media server's event (the URL a scrobbler was created with)",
    description:
      'No bearer token: the secret in the path is the credential. Bodies: application/json and text/plain holding JSON (every kind), application/x-www-form-urlencoded (jellyfin), multipart/form-data with the JSON in the part `payload` (plex) or `data` (emby); other types 415. At most 2 MiB (413); 120 requests per 60 s per secret (429 with Retry-After). The first failing check decides, in this order: unknown secret 404, rate limit 429, Content-Type 415, body size 413, body 400 (the secret and the type are checked before the body is read). Every recognised request is 200 with its outcome; media servers do not retry, so what was refused is lost.',
  })
  @ApiParam({ name: 'secret', description: "The secret of the scrobbler's URL" })
  @ApiConsumes(
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data',
  )
  @ApiBody({
    schema: { type: 'object', additionalProperties: true },
    examples: {
      generic: {
        value: {
          event: 'watched',
          media_type: 'anime',
          ids: { mal: 5114 },
          title: 'Fullmetal Alchemist: Brotherhood',
          episode: 5,
        },
      },
      jellyfin: {
        value: {
          NotificationType: 'PlaybackStop',
          ItemType: 'Episode',
          PlayedToCompletion: true,
          SeriesName: 'Frieren',
          SeasonNumber: 1,
          EpisodeNumber: 5,
          NotificationUsername: 'alice',
        },
      },
    },
  })
  @ApiOkResponse({
    type: ScrobbleOutcomeView,
    content: {
      'application/json': {
        examples: {
          updated: { value: { outcome: 'updated', title_id: 12, episodes_watched: 5 } },
          unmatched: { value: { outcome: 'unmatched', title_id: null, episodes_watched: null } },
        },
      },
    },
  })
  @ApiResponse({
    status: 400,
    description: "The body cannot be read as a payload of the scrobbler's kind",
  })
  @ApiResponse({
    status: 404,
    description: 'No scrobbler has this secret (deleted, or its secret replaced)',
  })
  @ApiResponse({ status: 413, description: 'The body is larger than 2 MiB' })
  @ApiResponse({
    status: 415,
    description: "A Content-Type the scrobbler's kind does not take, or none",
  })
  @ApiResponse({
    status: 429,
    description: 'More than 120 requests in 60 s for this secret; carries Retry-After',
  })
  @ApiResponse({ status: 503, description: 'The database does not answer: the event is lost' })
  receive(@Req() request: FastifyRequest): Promise<ScrobbleAnswer> {
    return this.scrobbling.receive(admissionOf(request), request.body);
  }
}
