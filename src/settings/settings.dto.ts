import { ApiProperty } from '@nestjs/swagger';
import { IsString, registerDecorator } from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import { IsOmittable, OptionalBoolean } from '../ratings/dto/validation-decorators';
import { isTimeZoneName } from './time-zone';

export const DEFAULT_TIME_ZONE = 'UTC';

function IsTimeZoneName(): PropertyDecorator {
  const message =
    'must be an IANA time zone name spelt as the tz database spells it, e.g. Europe/Berlin';
  return applyDecorators(
    IsOmittable(),
    IsString({ message }),
    (target: object, property: string | symbol) => {
      registerDecorator({
        name: 'isTimeZoneName',
        target: target.constructor,
        propertyName: property as string,
        options: { message },
        validator: {
          validate: (value: unknown) => typeof value === 'string' && isTimeZoneName(value),
        },
      });
    },
  );
}

/** PUT /v1/my/settings: each member optional, unknown members 400. */
export class PutSettingsDto {
  @ApiProperty({
    required: false,
    example: 'Europe/Berlin',
    description:
      'IANA time zone name, spelt as the tz database spells it: your days and months (history `from`/`to`, statistics) are taken in it',
  })
  @IsTimeZoneName()
  readonly time_zone?: string;

  @OptionalBoolean('Opt in to the public statistics card')
  readonly card?: boolean;
}

export class SettingsView {
  @ApiProperty({ example: 'Europe/Berlin', description: 'IANA time zone name; default UTC' })
  time_zone: string;

  @ApiProperty({ example: false, description: 'The public statistics card; default false' })
  card: boolean;
}
