import {
  ArgumentMetadata,
  Injectable,
  Type,
  ValidationError,
  ValidationPipe,
} from '@nestjs/common';
import { FieldError, ProblemException } from './problem';

/** A DTO class can explain why a field it does not have was sent (e.g. a manga field on anime). */
interface ExplainsUnknownFields {
  explainUnknownField?: (field: string) => string | undefined;
}

/**
 * The global ValidationPipe (decisions §3, §6): unknown fields rejected by name, no implicit
 * conversion (a string is not an integer), every offending field listed in problem+json.
 */
@Injectable()
export class ApiValidationPipe extends ValidationPipe {
  constructor(options: { expectedType?: Type<unknown> } = {}) {
    super({
      whitelist: true,
      forbidNonWhitelisted: true,
      forbidUnknownValues: true,
      transform: true,
      transformOptions: { enableImplicitConversion: false },
      validationError: { target: true, value: false },
      expectedType: options.expectedType,
      exceptionFactory: (errors) =>
        ProblemException.validation(errors.flatMap((e) => toFieldErrors(e))),
    });
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const validatesBody =
      metadata.type === 'body' && (this.expectedType ?? metadata.metatype) !== Object;
    if (validatesBody && (typeof value !== 'object' || value === null || Array.isArray(value))) {
      throw ProblemException.validation([{ field: 'body', message: 'must be a JSON object' }]);
    }
    return super.transform(value, metadata);
  }
}

function toFieldErrors(error: ValidationError, parent = ''): FieldError[] {
  const field = parent ? `${parent}.${error.property}` : error.property;
  const own: FieldError[] = [];
  if (error.constraints) {
    // The prototype's constructor: the instance's own `constructor` key could come from the body.
    const prototype = error.target ? (Object.getPrototypeOf(error.target) as object | null) : null;
    const dtoClass = prototype?.constructor as ExplainsUnknownFields | undefined;
    const explained = dtoClass?.explainUnknownField?.(field);
    const message =
      error.constraints.whitelistValidation !== undefined
        ? (explained ?? 'is not a known field')
        : Object.values(error.constraints)[0];
    own.push({ field, message });
  }
  return [...own, ...(error.children ?? []).flatMap((child) => toFieldErrors(child, field))];
}
