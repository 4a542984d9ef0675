import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { packageVersion } from './package-version';

interface ServiceIndex {
  name: string;
  version: string;
  docs: string;
  openapi: string;
  health: string;
}

/** `GET /`: where the documentation is, for whoever tries the bare address first (contract §17). */
@ApiTags('health')
@Controller()
export class RootController {
  @Get()
  // RFC 8631 link relations, for tools that look for a service's description.
  @Header('Link', '</docs/openapi.json>; rel="service-desc", </docs>; rel="service-doc"')
  @ApiOperation({
    operationId: 'getServiceIndex',
    summary:
      'Where the documentation is: Swagger UI at /docs, the OpenAPI document at /docs/openapi.json',
  })
  @ApiOkResponse({
    description: 'Links to the documentation; also in `Link` (rel service-doc and service-desc)',
    schema: {
      example: {
        name: 'Anime & manga ratings',
        version: '0.1.0',
        docs: '/docs',
        openapi: '/docs/openapi.json',
        health: '/health',
      },
    },
    headers: {
      Link: { description: 'RFC 8631 service-doc and service-desc', schema: { type: 'string' } },
    },
  })
  index(): ServiceIndex {
    return {
      name: 'Anime & manga ratings',
      version: packageVersion(),
      docs: '/docs',
      openapi: '/docs/openapi.json',
      health: '/health',
    };
  }
}
