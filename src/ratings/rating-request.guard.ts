import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ProblemException, PROBLEMS } from '../common/problem';
import { TITLE_REF, TitleRef } from './title-ref';
import { contentTypeEssence } from '../common/content-type';

const MAX_ID = 2 ** 31 - 1;

/**
 * The checks of contract §2 step 7 that precede the body, in their order: path id (400), query
 * (400), Content-Type (415); on GET all, the query alone. A guard because it runs after the rate limits and before any pipe;
 * parameter pipes run concurrently and would not keep this order.
 */
@Injectable()
export class RatingRequestGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<
      FastifyRequest<{ Params: { id?: string }; Querystring: Record<string, unknown> }> & {
        [TITLE_REF]?: TitleRef;
      }
    >();

    // GET all has no {id}; its query is still checked.
    const rawId = request.params.id;
    if (rawId !== undefined && !isTitleId(rawId)) {
      throw ProblemException.validation(
        [{ field: 'id', message: 'must be a positive integer below 2^31' }],
        PROBLEMS.invalidParameter,
      );
    }

    const useExternalIdQuery = parseBooleanQuery(request.query.use_external_id);

    if (request.method === 'PUT' && !isJson(request.headers['content-type'])) {
      throw ProblemException.of(
        415,
        PROBLEMS.unsupportedMediaType,
        'PUT needs "Content-Type: application/json" and a JSON object body',
      );
    }

    if (rawId !== undefined) request[TITLE_REF] = { id: Number(rawId), useExternalIdQuery };
    return true;
  }
}

function isTitleId(raw: string): boolean {
  return /^\d{1,10}$/.test(raw) && Number(raw) >= 1 && Number(raw) <= MAX_ID;
}

function parseBooleanQuery(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw ProblemException.validation(
    [{ field: 'use_external_id', message: 'must be true or false' }],
    PROBLEMS.invalidParameter,
  );
}

function isJson(contentType: string | undefined): boolean {
  return contentTypeEssence(contentType) === 'application/json';
}
