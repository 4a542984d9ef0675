import { Injectable } from '@nestjs/common';
import { AccessTokenVerifier } from './access-token-verifier';
import type { AuthenticatedUser } from './authenticated-user';
import { TokensService } from './tokens.service';

/**
 * This service's own tokens (contract §4): looked up by hash on every request, in one
 * statement, so revocation and expiry take effect at once on every instance.
 */
@Injectable()
export class OpaqueTokenVerifier extends AccessTokenVerifier {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  verify(token: string): Promise<AuthenticatedUser | null> {
    return this.tokens.authenticate(token);
  }
}
