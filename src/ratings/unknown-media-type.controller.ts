import { RequestMethod } from '@nestjs/common';
import { unknownMediaTypeController } from './unknown-media-type.routes';
import { RATING_ENDPOINTS } from './ratings.controller';

export const UnknownMediaTypeController = unknownMediaTypeController('v1/my/:mediaType', {
  getAll: { method: RequestMethod.GET, path: 'ratings', endpoint: RATING_ENDPOINTS.getAll },
  getOne: { method: RequestMethod.GET, path: ':id/ratings', endpoint: RATING_ENDPOINTS.getOne },
  put: { method: RequestMethod.PUT, path: ':id/ratings', endpoint: RATING_ENDPOINTS.put },
  remove: { method: RequestMethod.DELETE, path: ':id/ratings', endpoint: RATING_ENDPOINTS.remove },
});
