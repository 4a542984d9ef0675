/**
 * The principal an access token stands for, as the AccessTokenVerifier returns it; set on the
 * request as `request.user`.
 */
export interface AuthenticatedUser {
  /** The local user. */
  id: number;
  name: string;
  /** As granted; may name scopes this version does not know. */
  scopes: ReadonlySet<string>;
  /** The OAuth client the token was issued to, when known (`azp` or `client_id` of a JWT). */
  clientId: string | null;
  /** The registered name of that client, for this service's tokens issued to one; else null. */
  clientName: string | null;
  /** `opaque`: a token of this service; `jwt`: a JWT of the company's identity provider. */
  kind: 'opaque' | 'jwt';
  /** The identity provider's (`iss`, `sub`) of a JWT's user; null for opaque tokens. */
  subject: { issuer: string; subject: string } | null;
}
