import { Logger } from '@nestjs/common';
import { createRemoteJWKSet, errors, JWTPayload, jwtVerify } from 'jose';
import type { ExternalJwtConfig } from '../config/app-config';
import { AccessTokenVerifier } from './access-token-verifier';
import type { AuthenticatedUser } from './authenticated-user';
import { ExternalIdentitiesService } from './external-identities.service';

/** An unknown `kid` refetches the JWKS, at most once a minute (contract §19). */
const JWKS_COOLDOWN_MS = 60_000;
/** Clock leeway for `exp`, `nbf` (and `iat`): contract §19 asks for 30 to 60 s. */
const CLOCK_LEEWAY_SECONDS = 30;
const JWKS_TIMEOUT_MS = 5_000;

/** Three base64url segments: opaque tokens of this service never hold a dot. */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * JWT access tokens of the company's OpenID Connect provider, beside this service's own opaque
 * tokens, which it hands to `opaque` (contract §19). Such tokens are revoked by their issuer and
 * live until `exp`; the operator can still refuse a user's older ones (`tokens revoke --user`)
 * and block a deleted user's pair.
 */
export class ExternalJwtVerifier extends AccessTokenVerifier {
  private readonly logger = new Logger(ExternalJwtVerifier.name);
  private readonly keys: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    private readonly config: ExternalJwtConfig,
    private readonly opaque: AccessTokenVerifier,
    private readonly identities: ExternalIdentitiesService,
  ) {
    super();
    this.keys = createRemoteJWKSet(new URL(config.jwksUrl), {
      cooldownDuration: JWKS_COOLDOWN_MS,
      timeoutDuration: JWKS_TIMEOUT_MS,
    });
  }

  async verify(token: string): Promise<AuthenticatedUser | null> {
    if (!JWT_SHAPE.test(token)) return this.opaque.verify(token);
    const claims = await this.verifiedClaims(token);
    if (!claims) return null;
    const { iss, sub } = claims as Required<Pick<JWTPayload, 'iss' | 'sub'>>;
    const user = await this.identities.userFor(iss, sub, [
      claims.preferred_username,
      claims.name,
      sub,
    ]);
    if (!user) return null;
    if (
      user.tokensRevokedBefore !== null &&
      (claims.iat === undefined || claims.iat * 1000 < user.tokensRevokedBefore.getTime())
    ) {
      return null;
    }
    return {
      id: user.userId,
      name: user.userName,
      scopes: scopesOf(claims),
      clientId: stringClaim(claims.azp) ?? stringClaim(claims.client_id),
      clientName: null,
      kind: 'jwt',
      subject: { issuer: iss, subject: sub },
    };
  }

  /** The claims of a token signed by a key of the JWKS, for this API, live; else null. */
  private async verifiedClaims(token: string): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTolerance: CLOCK_LEEWAY_SECONDS,
        requiredClaims: ['exp', 'sub'],
      });
      return typeof payload.sub === 'string' && payload.sub !== '' ? payload : null;
    } catch (error) {
      // A token that fails the checks is the caller's problem (401); a JWKS that cannot be read
      // is the operator's, and is logged.
      if (error instanceof errors.JOSEError && !isJwksFailure(error)) return null;
      this.logger.warn(
        `JWT refused: the JWKS at ${this.config.jwksUrl} could not be used: ${String(error)}`,
      );
      return null;
    }
  }
}

function isJwksFailure(error: errors.JOSEError): boolean {
  return error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid;
}

function stringClaim(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** `scope` (space-separated), else `scp` (an array, or a space-separated string). */
function scopesOf(claims: JWTPayload): ReadonlySet<string> {
  const raw = typeof claims.scope === 'string' ? claims.scope : claims.scp;
  const list = Array.isArray(raw)
    ? raw.filter((scope): scope is string => typeof scope === 'string')
    : typeof raw === 'string'
      ? raw.split(' ')
      : [];
  return new Set(list.filter((scope) => scope.length > 0));
}
