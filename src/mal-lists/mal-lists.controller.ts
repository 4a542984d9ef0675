import { Controller, Get, HttpCode, Post, Req, RequestMethod, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProduces,
  ApiProperty,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { capitalized, type MediaType } from '../media-types/media-type';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import { ProblemException, PROBLEMS } from '../common/problem';
import { DECODES_CONTENT_ENCODING } from '../http-server/content-encoding';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { importBodyText, importEncodingOf, STREAMED_BODY } from './import-body';
import { MAL_LIST_TYPES } from './mal-format';
import type { MalListFormat } from '../media-types/mal-list-format';
import { ListImportSummary, MalListsService, SkippedElement } from './mal-lists.service';
import { contentTypeEssence } from '../common/content-type';

/** Rows of the rate limits (contract §5): anime and manga share each. */
export const LIST_ENDPOINTS = {
  export: 'lists.export',
  import: 'lists.import',
} as const;

class SkippedElementView implements SkippedElement {
  @ApiProperty({ type: 'integer', nullable: true, example: 5114 })
  external_id: number | null;

  @ApiProperty({ enum: ['not_in_catalog', 'invalid'], example: 'not_in_catalog' })
  reason: 'not_in_catalog' | 'invalid';

  @ApiProperty({ example: 'No anime title has external_id 5114' })
  detail: string;
}

class ListImportSummaryView implements ListImportSummary {
  @ApiProperty({ type: 'integer', description: 'Entries created', example: 120 })
  created: number;

  @ApiProperty({ type: 'integer', description: 'Entries where a mapped field changed', example: 3 })
  updated: number;

  @ApiProperty({
    type: 'integer',
    description:
      'Elements that change nothing, or whose update_on_import is 0 for an existing entry',
  })
  unchanged: number;

  @ApiProperty({ type: SkippedElementView, isArray: true })
  skipped: SkippedElementView[];
}

function isXml(contentType: string | undefined): boolean {
  const essence = contentTypeEssence(contentType);
  return essence === 'application/xml' || essence === 'text/xml';
}

function listsControllerFor(mediaType: MediaType, format: MalListFormat) {
  const fileName = format.fileName;
  const Media = capitalized(mediaType);

  @ApiTags(`${mediaType} ratings`)
  @Controller(`v1/my/${mediaType}`)
  @Scopes(SCOPES[mediaType])
  class ListsController {
    constructor(readonly lists: MalListsService) {}

    @Get('export')
    @RateLimited(LIST_ENDPOINTS.export)
    @ApiOperation({
      operationId: `export${Media}List`,
      summary: `Your ${mediaType} list as a MyAnimeList XML export`,
      description:
        "Every entry whose title has an external_id, except not_interested ones, by title id, in MyAnimeList's export format (the file MyAnimeList's own import reads).",
    })
    @ApiProduces('application/xml')
    @ApiOkResponse({
      description: `The XML file, with \`Content-Disposition: attachment; filename="${fileName}"\``,
      content: {
        'application/xml': {
          schema: { type: 'string' },
          example: `<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n\t<myinfo>\n\t\t<user_id>1</user_id>\n\t\t<user_name>alice</user_name>\n\t\t<user_export_type>${format.exportType}</user_export_type>\n\t\t…\n\t</myinfo>\n\t<${mediaType}>\n\t\t…\n\t</${mediaType}>\n</myanimelist>\n`,
        },
      },
    })
    async export(
      @CurrentUser() user: AuthenticatedUser,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const xml = await this.lists.export(user.id, mediaType);
      await reply
        .header('content-type', 'application/xml; charset=utf-8')
        .header('content-disposition', `attachment; filename="${fileName}"`)
        .send(xml);
    }

    @Post('import')
    @HttpCode(200)
    @RouteConfig({ [STREAMED_BODY]: true, [DECODES_CONTENT_ENCODING]: true })
    @RateLimited(LIST_ENDPOINTS.import)
    @ApiOperation({
      operationId: `import${Media}List`,
      summary: `Import a MyAnimeList ${mediaType} XML export into your list`,
      description:
        "The body is the XML file (`application/xml` or `text/xml`), optionally with `Content-Encoding: gzip`, at most 8 MiB after decompression. Elements are matched to titles by external_id; an existing entry is updated only when the element's `update_on_import` is 1. Elements that cannot be applied are listed in `skipped`; all others are written in one transaction. A DTD, entity declarations or XML that is not well formed: 400 with the line.",
    })
    @ApiConsumes('application/xml', 'text/xml')
    @ApiHeader({ name: 'Content-Encoding', required: false, enum: ['gzip', 'identity'] })
    @ApiBody({
      description: `A MyAnimeList export (\`<myanimelist>\`, \`<myinfo>\` with user_export_type ${format.exportType}, then \`<${mediaType}>\` elements)`,
      schema: { type: 'string' },
    })
    @ApiOkResponse({ type: ListImportSummaryView })
    @ApiBadRequestResponse({
      description:
        'XML not well formed, not UTF-8 or with a DTD (detail names the line), no <myinfo>, a list of the other type, or gzip that cannot be inflated',
    })
    @ApiPayloadTooLargeResponse({ description: 'Over 8 MiB after decompression' })
    @ApiUnsupportedMediaTypeResponse({
      description:
        'Content-Type is not application/xml or text/xml, or Content-Encoding is not gzip',
    })
    async import(
      @CurrentUser() user: AuthenticatedUser,
      @Req() request: FastifyRequest,
      @Res({ passthrough: true }) reply: FastifyReply,
    ): Promise<ListImportSummaryView> {
      if (!isXml(request.headers['content-type'])) {
        throw ProblemException.of(
          415,
          PROBLEMS.unsupportedMediaType,
          'Import needs "Content-Type: application/xml" (or text/xml) and the XML file as body',
        );
      }
      const encoding = importEncodingOf(request.headers['content-encoding']);
      try {
        return await this.lists.import(
          user.id,
          mediaType,
          importBodyText(request.body as Readable, encoding),
        );
      } catch (error) {
        // The rest of a refused body is not worth reading.
        if (error instanceof ProblemException) void reply.header('connection', 'close');
        throw error;
      }
    }
  }
  return ListsController;
}

/** The export and import routes of each media type MyAnimeList keeps lists of. */
export const MAL_LISTS_CONTROLLERS = MAL_LIST_TYPES.map(({ mediaType, format }) =>
  listsControllerFor(mediaType, format),
);

export const UnknownMediaTypeListsController = unknownMediaTypeController('v1/my/:mediaType', {
  export: { method: RequestMethod.GET, path: 'export', endpoint: LIST_ENDPOINTS.export },
  import: { method: RequestMethod.POST, path: 'import', endpoint: LIST_ENDPOINTS.import },
});
