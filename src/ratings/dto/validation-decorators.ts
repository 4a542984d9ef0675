import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import {
  IsBoolean,
  IsInt,
  Max,
  Min,
  registerDecorator,
  ValidateIf,
  ValidationOptions,
} from 'class-validator';

/**
 * Optional, but not nullable: class-validator's @IsOptional() also lets `null` through, and
 * contract §6 allows `null` only for the dates.
 */
export function IsOmittable(): PropertyDecorator {
  return ValidateIf((_object: object, value: unknown) => value !== undefined);
}

export function IntRange(min: number, max: number, description: string): PropertyDecorator {
  const message = `must be an integer from ${min} to ${max}`;
  return applyDecorators(
    ApiProperty({ type: 'integer', minimum: min, maximum: max, required: false, description }),
    IsOmittable(),
    IsInt({ message }),
    Min(min, { message }),
    Max(max, { message }),
  );
}

/**
 * A count of episodes, chapters or volumes: a non-negative integer here; its upper bound is the
 * title's count when known (else a fixed cap), so RatingsService checks it against the title.
 */
export function Count(description: string): PropertyDecorator {
  const message = 'must be a non-negative integer';
  return applyDecorators(
    ApiProperty({ type: 'integer', minimum: 0, required: false, description }),
    IsOmittable(),
    IsInt({ message }),
    Min(0, { message }),
  );
}

export function OptionalBoolean(description: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ type: 'boolean', required: false, description }),
    IsOmittable(),
    IsBoolean({ message: 'must be a boolean (true or false)' }),
  );
}

/** A real calendar date `YYYY-MM-DD`, or `null` to clear it. */
export function IsCalendarDateOrNull(description: string): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      type: 'string',
      format: 'date',
      nullable: true,
      required: false,
      example: '2024-01-02',
      description,
    }),
    ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isCalendarDate',
        target: target.constructor,
        propertyName: propertyName as string,
        options: {
          message: 'must be a calendar date YYYY-MM-DD, or null',
        } satisfies ValidationOptions,
        validator: { validate: isCalendarDate },
      }),
  );
}

export function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    year >= 1 &&
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day
  );
}

/**
 * A string of `min` to `max` characters, counted as Unicode code points as MariaDB's varchar
 * counts them (class-validator's @Length counts UTF-16 units: an emoji would be two).
 */
export function IsTextOfLength(min: number, max: number): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'isTextOfLength',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `must be a string of ${min} to ${max} characters` },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'string') return false;
          const length = [...value].length;
          return length >= min && length <= max;
        },
      },
    });
}

/** At most `max` characters, counted as Unicode code points (an emoji is one character). */
export function IsTextUpTo(max: number, description: string): PropertyDecorator {
  const message = `must be a string of at most ${max} characters`;
  return applyDecorators(
    ApiProperty({ type: 'string', maxLength: max, required: false, description }),
    IsOmittable(),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isTextUpTo',
        target: target.constructor,
        propertyName: propertyName as string,
        options: { message },
        validator: {
          validate: (value: unknown) => typeof value === 'string' && [...value].length <= max,
        },
      }),
  );
}
