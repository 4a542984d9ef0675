import { createParamDecorator, ExecutionContext } from '@nestjs/common';

/** The `{id}` of a rating route, checked by RatingRequestGuard. */
export interface TitleRef {
  id: number;
  /** `?use_external_id=` when given. */
  useExternalIdQuery?: boolean;
}

export const TITLE_REF = Symbol('titleRef');

export const CurrentTitleRef = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TitleRef =>
    context.switchToHttp().getRequest<{ [TITLE_REF]: TitleRef }>()[TITLE_REF],
);
