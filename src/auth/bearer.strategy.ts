import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedUser } from './authenticated-user';
import { AccessTokenVerifier } from './access-token-verifier';

/** passport-http-bearer reads the token; the AccessTokenVerifier decides what it is worth. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly verifier: AccessTokenVerifier) {
    super();
  }

  /**
   * Only the Authorization header carries a token (contract §2): passport-http-bearer also reads
   * `access_token` from the query and the body, so it is shown the headers alone.
   */
  override authenticate(request: { headers: unknown }, options?: object): void {
    super.authenticate({ headers: request.headers } as never, options);
  }

  async validate(token: string): Promise<AuthenticatedUser | false> {
    return (await this.verifier.verify(token)) ?? false;
  }
}
