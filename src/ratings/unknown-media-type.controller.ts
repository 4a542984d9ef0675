import { Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { unknownMediaType } from '../common/media-type';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { RATING_ENDPOINTS } from './ratings.controller';

/**
 * Any `{mediaType}` other than anime and manga: 404, but only after the User-Agent and token
 * checks, as step 4 of contract §2 comes after step 3. Not counted (steps 1-5 never count), but
 * it shows the budget of the endpoint row its path names, as every response of that row does.
 */
@ApiExcludeController()
@Controller('v1/my/:mediaType')
@Authenticated()
export class UnknownMediaTypeController {
  @Get('ratings')
  @RateLimited(RATING_ENDPOINTS.getAll, { counted: false })
  getAll(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Get(':id/ratings')
  @RateLimited(RATING_ENDPOINTS.getOne, { counted: false })
  getOne(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Put(':id/ratings')
  @RateLimited(RATING_ENDPOINTS.put, { counted: false })
  put(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Delete(':id/ratings')
  @RateLimited(RATING_ENDPOINTS.remove, { counted: false })
  remove(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }
}
