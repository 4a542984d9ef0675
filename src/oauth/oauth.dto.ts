import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ALL_SCOPES } from '../auth/scopes';

/**
 * Shapes of the OAuth endpoints for the OpenAPI document only: the endpoints read their
 * form-encoded bodies themselves and answer as the OAuth RFCs say, outside the /v1 pipeline.
 */

export class OAuthErrorDto {
  @ApiProperty({
    example: 'invalid_grant',
    description:
      'RFC 6749 §5.2 / RFC 7009 §2.2.1 error code: invalid_request, invalid_client, invalid_grant, unauthorized_client, unsupported_grant_type, invalid_scope, server_error',
  })
  readonly error: string;

  @ApiPropertyOptional({ example: 'Invalid grant: code verifier is invalid' })
  readonly error_description?: string;
}

export class TokenRequestDto {
  @ApiProperty({ enum: ['authorization_code', 'refresh_token'] })
  readonly grant_type: string;

  @ApiPropertyOptional({ description: 'authorization_code: the code from the redirect' })
  readonly code?: string;

  @ApiPropertyOptional({
    description: 'authorization_code: the redirect_uri of the authorization request, exactly',
  })
  readonly redirect_uri?: string;

  @ApiPropertyOptional({
    description:
      'authorization_code: the PKCE verifier (43-128 characters) whose S256 hash was the code_challenge',
  })
  readonly code_verifier?: string;

  @ApiPropertyOptional({ description: 'refresh_token: the current refresh token' })
  readonly refresh_token?: string;

  @ApiPropertyOptional({
    description: 'refresh_token: narrow the scopes (a subset of those granted)',
    example: 'ratings.anime',
  })
  readonly scope?: string;

  @ApiPropertyOptional({
    description: 'client_secret_post, or a public client (with no secret)',
  })
  readonly client_id?: string;

  @ApiPropertyOptional({ description: 'client_secret_post' })
  readonly client_secret?: string;
}

export class TokenResponseDto {
  @ApiProperty({ example: 'N2o8mYcS8k0Jb2wq3VrP6jBjlw1vWJXo0f5iC1Y9w1s' })
  readonly access_token: string;

  @ApiProperty({ enum: ['Bearer'] })
  readonly token_type: string;

  @ApiProperty({ example: 3600, description: 'Seconds; ACCESS_TOKEN_TTL_SECONDS' })
  readonly expires_in: number;

  @ApiProperty({
    example: 'r4sL0Hn6cXQe2fVw5G8bJm1tYkPzAu3dC7iEo9xWq2M',
    description:
      'Valid REFRESH_TOKEN_TTL_SECONDS (30 days); single use: each refresh returns a new one, and presenting a used one revokes the whole authorization',
  })
  readonly refresh_token: string;

  @ApiProperty({ example: 'ratings.anime user.profile', description: 'The scopes granted' })
  readonly scope: string;
}

export class TokenActionRequestDto {
  @ApiProperty({ description: 'An access token or a refresh token' })
  readonly token: string;

  @ApiPropertyOptional({ enum: ['access_token', 'refresh_token'] })
  readonly token_type_hint?: string;

  @ApiPropertyOptional({ description: 'client_secret_post (or a public client, for revocation)' })
  readonly client_id?: string;

  @ApiPropertyOptional({ description: 'client_secret_post' })
  readonly client_secret?: string;
}

export class IntrospectionResponseDto {
  @ApiProperty()
  readonly active: boolean;

  @ApiPropertyOptional({ example: 'ratings.anime user.profile' })
  readonly scope?: string;

  @ApiPropertyOptional()
  readonly client_id?: string;

  @ApiPropertyOptional({ example: 'alice' })
  readonly username?: string;

  @ApiPropertyOptional({ enum: ['Bearer'], description: 'Access tokens only' })
  readonly token_type?: string;

  @ApiPropertyOptional({ description: 'Expiry, seconds since the epoch' })
  readonly exp?: number;

  @ApiPropertyOptional({ description: 'Issue time, seconds since the epoch' })
  readonly iat?: number;

  @ApiPropertyOptional({ description: 'The user id, as a string' })
  readonly sub?: string;

  @ApiPropertyOptional()
  readonly iss?: string;
}

export class AuthorizationServerMetadataDto {
  @ApiProperty({ example: 'https://ratings.example' }) readonly issuer: string;
  @ApiProperty() readonly authorization_endpoint: string;
  @ApiProperty() readonly token_endpoint: string;
  @ApiProperty() readonly revocation_endpoint: string;
  @ApiProperty() readonly introspection_endpoint: string;
  @ApiProperty({ example: ALL_SCOPES }) readonly scopes_supported: string[];
  @ApiProperty({ example: ['code'] }) readonly response_types_supported: string[];
  @ApiProperty({ example: ['query'] }) readonly response_modes_supported: string[];
  @ApiProperty({ example: ['authorization_code', 'refresh_token'] })
  readonly grant_types_supported: string[];
  @ApiProperty({ example: ['S256'] }) readonly code_challenge_methods_supported: string[];
  @ApiProperty({ example: ['client_secret_basic', 'client_secret_post', 'none'] })
  readonly token_endpoint_auth_methods_supported: string[];
  @ApiProperty({ example: ['client_secret_basic', 'client_secret_post', 'none'] })
  readonly revocation_endpoint_auth_methods_supported: string[];
  @ApiProperty({ example: ['client_secret_basic', 'client_secret_post'] })
  readonly introspection_endpoint_auth_methods_supported: string[];
  @ApiProperty({ example: true }) readonly authorization_response_iss_parameter_supported: boolean;
  @ApiProperty() readonly service_documentation: string;
}

export class AuthorizeFormDto {
  @ApiProperty({ enum: ['code'] }) readonly response_type: string;
  @ApiProperty() readonly client_id: string;
  @ApiProperty() readonly redirect_uri: string;
  @ApiProperty({ example: 'ratings.anime user.profile' }) readonly scope: string;
  @ApiPropertyOptional() readonly state?: string;
  @ApiProperty() readonly code_challenge: string;
  @ApiProperty({ enum: ['S256'] }) readonly code_challenge_method: string;
  @ApiProperty({ description: 'The token of the page (double-submit of the oauth_csrf cookie)' })
  readonly csrf_token: string;
  @ApiProperty() readonly username: string;
  @ApiProperty() readonly password: string;
  @ApiProperty({
    type: [String],
    enum: ALL_SCOPES,
    description: 'Scopes the user ticked: a subset of scope',
  })
  readonly grant: string[];
  @ApiProperty({ enum: ['approve', 'deny'] }) readonly decision: string;
}
