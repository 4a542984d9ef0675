import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { AuthorizationServerMetadataDto } from './oauth.dto';
import {
  AuthorizationServerMetadata,
  authorizationServerMetadata,
  issuerOf,
} from './oauth-metadata';

@ApiTags('oauth')
@Controller('.well-known/oauth-authorization-server')
export class MetadataController {
  @Get()
  // Built from the request's Host / X-Forwarded-* headers: a shared cache must not serve one
  // request's answer to another.
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Authorization server metadata (RFC 8414)',
    description:
      'Outside the /v1 pipeline. The issuer is the origin the request reached (behind a proxy, set TRUST_PROXY so that X-Forwarded-Proto and X-Forwarded-Host count).',
  })
  @ApiOkResponse({ type: AuthorizationServerMetadataDto })
  metadata(@Req() request: FastifyRequest): AuthorizationServerMetadata {
    return authorizationServerMetadata(issuerOf(request));
  }
}
