import { Controller, Delete, Get, Param, Put } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { Authenticated } from '../auth/auth.decorators';
import { ProblemException } from '../common/problem';

/**
 * Any `{mediaType}` other than anime and manga: 404, but only after the User-Agent and token
 * checks, as step 4 of decisions §2 comes after step 3. Not rate limited (steps 1-5 never count).
 */
@ApiExcludeController()
@Controller('v1/my/:mediaType')
@Authenticated()
export class UnknownMediaTypeController {
  @Get('ratings')
  getAll(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Get(':id/ratings')
  getOne(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Put(':id/ratings')
  put(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }

  @Delete(':id/ratings')
  remove(@Param('mediaType') mediaType: string): never {
    throw unknownMediaType(mediaType);
  }
}

function unknownMediaType(mediaType: string): ProblemException {
  return ProblemException.notFound(`Unknown media type "${mediaType}": use anime or manga`);
}
