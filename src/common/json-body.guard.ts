import { CanActivate, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { contentTypeEssence } from './content-type';
import { ProblemException, PROBLEMS } from './problem';

/** 415 before the body is validated (contract §2 step 7), as for a rating PUT. */
export class JsonBodyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (contentTypeEssence(request.headers['content-type']) !== 'application/json') {
      throw ProblemException.of(
        415,
        PROBLEMS.unsupportedMediaType,
        `${request.method} needs "Content-Type: application/json" and a JSON object body`,
      );
    }
    return true;
  }
}
