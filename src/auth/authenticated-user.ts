/** What the bearer token resolves to; set on the request as `request.user`. */
export interface AuthenticatedUser {
  id: number;
  name: string;
  /** As granted; may name scopes this version does not know. */
  scopes: ReadonlySet<string>;
}
