import {
  ArgumentMetadata,
  Injectable,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { FieldError, ProblemException } from './problem';

/**
 * The global ValidationPipe (contract §3, §6): unknown fields rejected by name, no implicit
 * conversion (a string is not an integer), every offending field listed in problem+json.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  /**
   * `explainUnknownField` says why a field the body's class does not have was sent (e.g. a manga
   * field on anime); undefined: "is not a known field".
   */
  constructor(
    options: {
      expectedType?: Type<unknown>;
      explainUnknownField?: (field: string) => string | undefined;
    } = {},
  ) {
    const explain = options.explainUnknownField ?? (() => undefined);
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: true, value: false },
      expectedType: options.expectedType,
      exceptionFactory: (errors) =>
        ProblemException.validation(errors.flatMap((e) => toFieldErrors(e, explain))),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const validatesBody =
      metadata.type === 'body' && (this.expectedType ?? metadata.metatype) !== Object;
    if (!validatesBody) return super.transform(value, metadata);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw ProblemException.validation([{ field: 'body', message: 'must be a JSON object' }]);
    }
    const body = value as Record<string, unknown>;
    // class-transformer recurses into every nested value: a deep one overflows the stack.
    const tooDeep = Object.keys(body).filter((key) => nestsDeeperThan(body[key], MAX_DEPTH));
    if (tooDeep.length > 0) {
      throw ProblemException.validation(
        tooDeep.map((field) => ({ field, message: 'is nested too deeply' })),
      );
    }
    // Keys that name something every object or function has (__proto__, constructor, prototype,
    // toString, ...) are dropped or mishandled by class-transformer, so whitelist validation never
    // sees them: they are named here, and kept away from the transformation (a `__proto__` key
    // given to an assignment would replace the instance's prototype).
    const special = Object.keys(body).filter(isSpecialKey);
    if (special.length === 0) return super.transform(value, metadata);
    const rest = Object.fromEntries(Object.entries(body).filter(([key]) => !isSpecialKey(key)));
    let others: FieldError[] = [];
    try {
      await super.transform(rest, metadata);
    } catch (error) {
      if (!(error instanceof ProblemException) || !error.problem.errors) throw error;
      others = error.problem.errors;
    }
    throw ProblemException.validation([
      ...others,
      ...special.map((field) => ({ field, message: 'is not a known field' })),
    ]);
  }
}

function isSpecialKey(key: string): boolean {
  return key === '__proto__' || key === 'prototype' || key in Object.prototype;
}

const MAX_DEPTH = 32;

/** Iterative, so that the check itself cannot overflow the stack. */
function nestsDeeperThan(root: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limit) return true;
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return false;
}

function toFieldErrors(
  error: ValidationError,
  explain: (field: string) => string | undefined,
  parent = '',
): FieldError[] {
  const field = parent ? `${parent}.${error.property}` : error.property;
  const own: FieldError[] = [];
  if (error.constraints) {
    const message =
      error.constraints.whitelistValidation !== undefined
        ? (explain(field) ?? 'is not a known field')
        : Object.values(error.constraints)[0];
    own.push({ field, message });
  }
  return [
    ...own,
    ...(error.children ?? []).flatMap((child) => toFieldErrors(child, explain, field)),
  ];
}
