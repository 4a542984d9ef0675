import type { AuthenticatedUser } from './authenticated-user';

/**
 * The seam of bearer authentication (step 3 of contract §2): BearerStrategy hands it the token
 * of the Authorization header. The default accepts this service's opaque tokens; with
 * AUTH_JWT_ISSUER, AUTH_JWT_JWKS_URL and AUTH_JWT_AUDIENCE set, JWTs of the company's identity
 * provider are accepted beside them (see TokensModule). Provide another implementation to accept
 * other tokens.
 */
export abstract class AccessTokenVerifier {
  /** The principal behind a live token; null when the token is not one (401 invalid_token). */
  abstract verify(token: string): Promise<AuthenticatedUser | null>;
}
