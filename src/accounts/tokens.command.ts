import { Inject } from '@nestjs/common';
import { AccountTokens } from './account-tokens';
import { CommandGroup } from '../common/cli/command-group';
import { serviceCommand } from '../common/cli/service-command';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../common/cli/options';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TokenRequestError, TokensService } from '../auth/tokens.service';

@SubCommand({
  name: 'issue',
  description: 'Issue an access token; prints the token alone on one line',
})
@Options(
  { flags: '--user <name>', description: 'Name of the user the token acts for', required: true },
  {
    flags: '--scopes <scopes>',
    description: 'Space-separated: ratings.anime ratings.manga user.profile',
    required: true,
  },
  {
    flags: '--ttl <seconds>',
    description: 'Lifetime in seconds (default ACCESS_TOKEN_TTL_SECONDS, 3600)',
    parse: (value) => {
      if (!/^\d+$/.test(value))
        throw new TokenRequestError(`--ttl must be a whole number of seconds, got "${value}"`);
      return Number(value);
    },
  },
)
export class IssueTokenCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(
    _args: string[],
    options: { user: string; scopes: string; ttl?: number },
  ): Promise<void> {
    const { token } = await this.tokens.issue(
      options.user,
      options.scopes,
      // The same default lifetime as tokens from the OAuth flow: the two are interchangeable.
      options.ttl ?? this.config.oauth.accessTokenTtlSeconds,
    );
    process.stdout.write(`${token}\n`);
  }
}

@SubCommand({
  name: 'revoke',
  arguments: '[token]',
  description:
    "Revoke an access token at once, or with --user every token of a user: access and refresh tokens, pending authorization codes, and the identity provider's JWTs issued until now",
})
@Options({ flags: '--user <name>', description: 'Revoke every token of this user' })
export class RevokeTokenCommand extends CommandRunner {
  constructor(
    private readonly tokens: TokensService,
    private readonly accounts: AccountTokens,
  ) {
    super();
  }

  async run([token]: string[], options: { user?: string }): Promise<void> {
    if ((token === undefined) === (options.user === undefined)) {
      throw new TokenRequestError('give either a token or --user NAME');
    }
    if (options.user !== undefined) {
      const revoked = await this.accounts.revokeAll(options.user);
      process.stdout.write(
        `revoked ${revoked.accessTokens} access token(s) and ${revoked.authorizations} authorization(s) with their refresh tokens and codes${revoked.identityProvider ? ", and the identity provider's tokens issued until now" : ''}${revoked.scrobblers > 0 ? `; deleted ${revoked.scrobblers} scrobbler(s)` : ''}\n`,
      );
      return;
    }
    if (!(await this.tokens.revoke(token))) throw new TokenRequestError('no such token');
    process.stdout.write('revoked\n');
  }
}

export const ListTokensCommand = serviceCommand(AccountTokens, {
  className: 'ListTokensCommand',
  name: 'list',
  description:
    "List a user's access and refresh tokens, one JSON line each: type, id, client_id, scopes, issued_at, expires_at, status (never the token)",
  options: [{ flags: '--user <name>', description: 'Name of the user', required: true }],
  run: (accounts, options: { user: string }) => accounts.list(options.user),
});

@Command({
  name: 'tokens',
  description: 'Manage access tokens',
  subCommands: [IssueTokenCommand, ListTokensCommand, RevokeTokenCommand],
})
export class TokensCommand extends CommandGroup {}
