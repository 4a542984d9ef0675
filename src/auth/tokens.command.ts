import { Inject } from '@nestjs/common';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { TokenRequestError, TokensService } from './tokens.service';

@SubCommand({
  name: 'issue',
  description: 'Issue an access token; prints the token alone on one line',
})
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

  @Option({
    flags: '--user <name>',
    description: 'Name of the user the token acts for',
    required: true,
  })
  parseUser(value: string): string {
    return value;
  }

  @Option({
    flags: '--scopes <scopes>',
    description: 'Space-separated: ratings.anime ratings.manga user.profile',
    required: true,
  })
  parseScopes(value: string): string {
    return value;
  }

  @Option({
    flags: '--ttl <seconds>',
    description: 'Lifetime in seconds (default ACCESS_TOKEN_TTL_SECONDS, 3600)',
  })
  parseTtl(value: string): number {
    if (!/^\d+$/.test(value))
      throw new TokenRequestError(`--ttl must be a whole number of seconds, got "${value}"`);
    return Number(value);
  }
}

@SubCommand({ name: 'revoke', arguments: '<token>', description: 'Revoke an access token at once' })
export class RevokeTokenCommand extends CommandRunner {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  async run([token]: string[]): Promise<void> {
    if (!(await this.tokens.revoke(token))) throw new TokenRequestError('no such token');
    process.stdout.write('revoked\n');
  }
}

@Command({
  name: 'tokens',
  description: 'Manage access tokens',
  subCommands: [IssueTokenCommand, RevokeTokenCommand],
})
export class TokensCommand extends CommandRunner {
  run(): Promise<void> {
    this.command.help();
  }
}
