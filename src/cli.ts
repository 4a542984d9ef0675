import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { Inject, Injectable, Module, OnModuleInit } from '@nestjs/common';
import type { Command } from 'commander';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { CommandFactory, InjectCommander } from 'nest-commander';
import { UnblockUserCommand } from './auth/external-identities.command';
import { DeleteUserCommand, ExportUserCommand } from './accounts/accounts.command';
import { AccountsModule } from './accounts/accounts.module';
import { DenialsCommand, LiftDenialCommand, ListDenialsCommand } from './auth/denials.command';
import { IpDenialsModule } from './auth/ip-denials.module';
import { TokensModule } from './auth/tokens.module';
import {
  IssueTokenCommand,
  ListTokensCommand,
  RevokeTokenCommand,
  TokensCommand,
} from './accounts/tokens.command';
import { exitQuietlyWhenOutputClosed } from './common/cli/output';
import { CatalogModule } from './catalog/catalog.module';
import { CatalogCommand, ImportCatalogCommand } from './catalog/catalog.command';
import { ExportListCommand, ImportListCommand, ListsCommand } from './mal-lists/lists.command';
import { HistoryModule } from './history/history.module';
import { MalListsModule } from './mal-lists/mal-lists.module';
import { AppConfig, InvalidConfigError, loadConfig } from './config/app-config';
import { APP_CONFIG, ConfigModule } from './config/config.module';
import { packageVersion } from './docs/package-version';
import { CopyDatabaseCommand, DatabaseCommand } from './database-copy/database.command';
import { DatabaseConnection, DatabaseModule } from './database/database.module';
import { ENTITIES } from './entities';
import {
  ClientsCommand,
  CreateClientCommand,
  DeleteClientCommand,
  ListClientsCommand,
  RotateClientSecretCommand,
} from './oauth/clients.command';
import { OAuthGrantsModule } from './oauth/oauth-grants.module';
import { ResetSignInCommand } from './oauth/sign-in-resets.command';
import { SignInResetsModule } from './oauth/sign-in-resets.module';
import { OAuthClientsModule } from './oauth/oauth-clients.module';
import { RatingsModule } from './ratings/ratings.module';
import { SyncHooksModule } from './sync/sync-hooks.module';
import { UsersModule } from './users/users.module';
import { WebhookOutboxModule } from './webhooks/webhook-outbox.module';
import {
  CreateWebhookCommand,
  DeleteWebhookCommand,
  ListWebhooksCommand,
  WebhookDeliveriesCommand,
  WebhooksCommand,
} from './webhooks/webhooks.command';
import {
  CreateUserCommand,
  ListUsersCommand,
  NewPasswordQuestions,
  SetPasswordCommand,
  UsersCommand,
} from './accounts/users.command';

/**
 * Usage lines name the program as the README runs it, not as the file it was started from. The
 * database is opened (created, migrated) only once a command is about to run: `--help`,
 * `--version` and usage errors never touch it.
 */
@Injectable()
class ProgramName implements OnModuleInit {
  constructor(
    @InjectCommander() private readonly program: Command,
    private readonly database: DatabaseConnection,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.program.name('node dist/cli.js');
    refuseExcessArguments(this.program);
    this.program.hook('preAction', async (_program, command) => {
      // A group (`users`, `users nuke`) only prints its help or names what it did not understand.
      if (command.commands.length > 0) return;
      const { database } = this.config;
      // A CLI pointed at the wrong file would otherwise work on an empty database without a word.
      if (database.type === 'sqlite' && database.path !== ':memory:' && !existsSync(database.path)) {
        process.stderr.write(`note: creating a new SQLite database at ${database.path}\n`);
      }
      await this.database.open();
    });
  }
}

/**
 * A word a command does not take (`users list bob`) is a mistake, as an unknown option is.
 * Groups keep theirs: CommandGroup names the unknown sub-command itself.
 */
function refuseExcessArguments(command: Command): void {
  if (command.commands.length === 0) command.allowExcessArguments(false);
  command.commands.forEach(refuseExcessArguments);
}

/**
 * The admin command line (users, tokens, OAuth clients, catalog): the app's own modules and
 * services, no copy of their logic.
 */
@Module({
  imports: [
    ConfigModule.forRoot(),
    DatabaseModule.forRoot({ attempts: 1, entities: ENTITIES, onDemand: true }),
    EventEmitterModule.forRoot(),
    UsersModule,
    // Entry writes from the command line take the same path (and hooks) as the server's.
    RatingsModule,
    SyncHooksModule,
    WebhookOutboxModule,
    HistoryModule,
    TokensModule,
    CatalogModule,
    MalListsModule,
    OAuthClientsModule,
    OAuthGrantsModule,
    AccountsModule,
    IpDenialsModule,
    SignInResetsModule,
  ],
  providers: [
    ProgramName,
    UsersCommand,
    CreateUserCommand,
    ListUsersCommand,
    SetPasswordCommand,
    NewPasswordQuestions,
    ExportUserCommand,
    DeleteUserCommand,
    ResetSignInCommand,
    DenialsCommand,
    ListDenialsCommand,
    LiftDenialCommand,
    UnblockUserCommand,
    ClientsCommand,
    CreateClientCommand,
    ListClientsCommand,
    DeleteClientCommand,
    RotateClientSecretCommand,
    TokensCommand,
    IssueTokenCommand,
    ListTokensCommand,
    RevokeTokenCommand,
    CatalogCommand,
    ImportCatalogCommand,
    WebhooksCommand,
    CreateWebhookCommand,
    ListWebhooksCommand,
    DeleteWebhookCommand,
    WebhookDeliveriesCommand,
    ListsCommand,
    ExportListCommand,
    ImportListCommand,
    DatabaseCommand,
    CopyDatabaseCommand,
  ],
})
class CliModule {}

function fail(error: unknown): never {
  // Commander has already printed its own message (usage errors) or the help text.
  const commander = error as { code?: unknown; exitCode?: unknown };
  if (typeof commander.code === 'string' && commander.code.startsWith('commander.')) {
    process.exit(typeof commander.exitCode === 'number' ? commander.exitCode : 1);
  }
  const message =
    error instanceof InvalidConfigError || error instanceof Error ? error.message : String(error);
  process.stderr.write(`error: ${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  exitQuietlyWhenOutputClosed();
  try {
    loadConfig();
  } catch (error) {
    fail(error);
  }
  await CommandFactory.run(CliModule, {
    version: packageVersion(),
    helpConfiguration: {
      optionDescription: (option) =>
        option.mandatory ? `${option.description} (required)` : option.description,
    },
    logger: false,
    abortOnError: false,
    errorHandler: fail,
    serviceErrorHandler: fail,
  });
}

main().catch(fail);
