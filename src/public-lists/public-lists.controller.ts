import { Controller, Get, Param, Req, RequestMethod, Res, Type } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Scopes } from '../auth/auth.decorators';
import type { Scope } from '../auth/scopes';
import { capitalized, type MediaType } from '../media-types/media-type';
import { unknownMediaTypeController } from '../ratings/unknown-media-type.routes';
import { ConditionalRead } from '../conditional-reads/conditional-read.decorator';
import { VersionedReads } from '../conditional-reads/versioned-reads';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { ListOptionsDocs } from '../ratings/list-options.docs';
import { parseListOptions, withNextPageLink } from '../ratings/list-options';
import { DESCRIPTOR_LIST } from '../media-types';
import { PUBLIC_VIEWS } from '../ratings/dto/entry-classes';
import { RatingsService } from '../ratings/ratings.service';
import { UsersService } from '../users/users.service';
import { PUBLIC_ENDPOINTS } from './public-lists.errors';
import { findPublicOwner, OwnerNameParam } from './public-owner';

/**
 * Another user's visible entries of one media type (contract §18). Which entries and fields a
 * reader who is not the owner sees is the ratings module's public view (public-view.policy.ts);
 * this controller only finds the user and pages the list.
 */
function publicListControllerFor<M extends MediaType>(
  mediaType: M,
  scope: Scope,
  view: Type<unknown>,
) {
  const Media = capitalized(mediaType);
  @ApiTags('public lists')
  @Controller(`v1/users/:name/${mediaType}`)
  @Scopes(scope)
  class PublicListController {
    constructor(
      readonly ratings: RatingsService,
      readonly users: UsersService,
      readonly versionedReads: VersionedReads,
    ) {}

    @Get('ratings')
    @RateLimited(PUBLIC_ENDPOINTS.list)
    @ApiOperation({
      operationId: `listPublic${Media}Ratings`,
      summary: `Another user's visible ${mediaType} entries, ordered by title id`,
      description: `Only when the operator set PUBLIC_LISTS=true (otherwise 404). The entries the user marked \`is_visible: true\`, each without \`personal_rating\`, \`notes\` and \`is_visible\`; private entries leave no trace. Any user's token with the \`${scope}\` scope may read it. The options and paging work as on your own list (\`status\`, \`limit\`, \`after\`, \`Link: <…>; rel="next"\`), over visible entries only. The ETag moves only when this public body changes.`,
    })
    @OwnerNameParam()
    @ListOptionsDocs(view)
    @ConditionalRead()
    async list(
      @Param('name') name: string,
      @Req() request: FastifyRequest,
      @Res() reply: FastifyReply,
    ): Promise<void> {
      const options = parseListOptions(request.query as Record<string, unknown>);
      const owner = await findPublicOwner(this.users, name);
      await this.versionedReads.send(
        request,
        reply,
        {
          userId: owner.id,
          view: 'public',
          endpoint: PUBLIC_ENDPOINTS.list,
          mediaType,
          query: {
            status: options.statuses?.join(',') ?? null,
            limit: options.limit,
            after: options.after,
          },
        },
        async () => [owner.createdAt, await this.ratings.publicVersion(owner.id, mediaType)],
        async () => {
          const page = await this.ratings.getListed('public', owner.id, mediaType, options);
          const path = `/v1/users/${encodeURIComponent(name)}/${mediaType}/ratings`;
          return withNextPageLink(reply, path, options, page);
        },
      );
    }
  }
  return PublicListController;
}

export const PUBLIC_LIST_CONTROLLERS = DESCRIPTOR_LIST.map((descriptor) =>
  publicListControllerFor(descriptor.name, descriptor.scope, PUBLIC_VIEWS[descriptor.name]),
);

export const PublicListUnknownMediaTypeController = unknownMediaTypeController(
  'v1/users/:name/:mediaType',
  { list: { method: RequestMethod.GET, path: 'ratings', endpoint: PUBLIC_ENDPOINTS.list } },
);
