import { Body, Controller, Get, HttpCode, Put, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { CurrentUser, Scopes } from '../auth/auth.decorators';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { SCOPES } from '../auth/scopes';
import { ApiValidationPipe } from '../common/api-validation.pipe';
import { JsonBodyGuard } from '../common/json-body.guard';
import { RateLimited } from '../rate-limit/rate-limited.decorator';
import { PutSettingsDto, SettingsView } from './settings.dto';
import { SettingsService } from './settings.service';

export const SETTINGS_ENDPOINTS = { get: 'settings.get', put: 'settings.put' } as const;

@ApiTags('settings')
@Controller('v1/my/settings')
@Scopes(SCOPES.profile)
export class SettingsController {
  constructor(private readonly settings: SettingsService) {}

  @Get()
  @RateLimited(SETTINGS_ENDPOINTS.get)
  @ApiOperation({ operationId: 'getSettings', summary: 'Your settings: time zone and card' })
  @ApiOkResponse({ type: SettingsView })
  get(@CurrentUser() user: AuthenticatedUser): Promise<SettingsView> {
    return this.settings.get(user.id);
  }

  @Put()
  @HttpCode(200)
  @RateLimited(SETTINGS_ENDPOINTS.put)
  @UseGuards(JsonBodyGuard)
  @ApiOperation({
    operationId: 'putSettings',
    summary: 'Change your settings',
    description:
      'Each member is optional; an omitted one keeps its value. Unknown members are 400. Answers the settings as they now are.',
  })
  @ApiBody({
    type: PutSettingsDto,
    examples: { settings: { value: { time_zone: 'Europe/Berlin', card: false } } },
  })
  @ApiOkResponse({ type: SettingsView })
  @ApiBadRequestResponse({
    description: 'Unknown member, or a value of the wrong type or not a time zone',
  })
  @ApiUnsupportedMediaTypeResponse({ description: 'Content-Type is not application/json' })
  put(
    @CurrentUser() user: AuthenticatedUser,
    @Body(new ApiValidationPipe({ expectedType: PutSettingsDto })) body: PutSettingsDto,
  ): Promise<SettingsView> {
    return this.settings.put(user.id, body);
  }
}
