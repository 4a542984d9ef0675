import { Controller, Param, RequestMapping, RequestMethod, type Type } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { unknownMediaType } from '../media-types/media-type';

/** One route of a media type's controller, under any other `{mediaType}`. */
export interface UnknownMediaTypeRoute {
  method: RequestMethod;
  path: string;
  /** The endpoint row of the route (contract §2). */
  endpoint: string;
}

/**
 * A controller whose `routes`, under a `{mediaType}` other than the known ones, answer 404, but
 * only after the User-Agent and token checks, as step 4 of contract §2 comes after step 3. Not
 * counted (steps 1-5 never count), but each shows the budget of its endpoint row, as every
 * response of that row does. The keys of `routes` name the handlers.
 */
export function unknownMediaTypeController(
  prefix: string,
  routes: Record<string, UnknownMediaTypeRoute>,
): Type {
  @ApiExcludeController()
  @Controller(prefix)
  @Authenticated()
  class UnknownMediaTypeController {}

  const prototype = UnknownMediaTypeController.prototype;
  for (const [name, { method, path, endpoint }] of Object.entries(routes)) {
    const descriptor = {
      value: (mediaType: string): never => {
        throw unknownMediaType(mediaType);
      },
      writable: true,
      configurable: true,
    };
    Object.defineProperty(prototype, name, descriptor);
    Reflect.defineMetadata('design:paramtypes', [String], prototype, name);
    Param('mediaType')(prototype, name, 0);
    RequestMapping({ method, path })(prototype, name, descriptor);
    RateLimited(endpoint, { counted: false })(prototype, name, descriptor);
  }
  return UnknownMediaTypeController;
}
