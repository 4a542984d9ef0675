import type { FastifyRequest } from 'fastify';
import { ALL_SCOPES } from '../auth/scopes';
import { PKCE_METHOD } from './authorization-request';
import { SUPPORTED_GRANT_TYPES } from './oauth-server.service';

/**
 * The issuer identifier: this server's own origin as the caller reached it (the Host header, or
 * X-Forwarded-Proto/-Host from a proxy trusted by TRUST_PROXY), so a self-hosted instance needs no
 * extra setting to publish correct metadata.
 */
export function issuerOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...SUPPORTED_GRANT_TYPES],
    code_challenge_methods_supported: [PKCE_METHOD],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    service_documentation: `${issuer}/docs`,
  };
}

export type AuthorizationServerMetadata = ReturnType<typeof authorizationServerMetadata>;
