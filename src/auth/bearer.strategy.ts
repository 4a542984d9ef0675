import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import type { AuthenticatedUser } from './authenticated-user';
import { TokensService } from './tokens.service';

@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  /**
   * Only the Authorization header carries a token (decisions §2): passport-http-bearer also reads
   * `access_token` from the query and the body, so it is shown the headers alone.
   */
  override authenticate(request: { headers: unknown }, options?: object): void {
    super.authenticate({ headers: request.headers } as never, options);
  }

  async validate(token: string): Promise<AuthenticatedUser | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
