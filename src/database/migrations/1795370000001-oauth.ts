import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

const id = {
  name: 'id',
  type: 'integer',
  isPrimary: true,
  isGenerated: true,
  generationStrategy: 'increment' as const,
};
const int = (name: string) => ({ name, type: 'int' });
const datetime = (name: string, isNullable = false) => ({ name, type: 'datetime', isNullable });
const varchar = (name: string, length: number, isNullable = false) => ({
  name,
  type: 'varchar',
  length: String(length),
  isNullable,
});
const cascade = (column: string, table: string, name: string) =>
  new TableForeignKey({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete: 'CASCADE',
  });

const NEW_TABLES = [
  'oauth_clients',
  'oauth_grants',
  'oauth_authorization_codes',
  'oauth_refresh_tokens',
] as const;

/**
 * The OAuth 2.0 authorization server: registered clients, grants (one per authorization, the
 * "family" of its codes and tokens), authorization codes and refresh tokens, all secrets stored as
 * SHA-256 hashes; and the grant of each access token. QueryRunner table API, so that one
 * migration runs on SQLite and MySQL/MariaDB.
 */
export class OAuth1795370000001 implements MigrationInterface {
  name = 'OAuth1795370000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'oauth_clients',
        columns: [
          id,
          varchar('client_id', 64),
          varchar('name', 100),
          // Null for a public client (PKCE alone, no secret).
          varchar('secret_hash', 64, true),
          // JSON array of the registered redirect URIs, matched exactly.
          { name: 'redirect_uris', type: 'text' },
          datetime('created_at'),
        ],
        indices: [
          new TableIndex({
            name: 'UQ_oauth_clients_client_id',
            columnNames: ['client_id'],
            isUnique: true,
          }),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'oauth_grants',
        columns: [
          id,
          int('oauth_client_id'),
          int('user_id'),
          datetime('created_at'),
          datetime('revoked_at', true),
        ],
        indices: [
          new TableIndex({ name: 'IDX_oauth_grants_client', columnNames: ['oauth_client_id'] }),
          new TableIndex({ name: 'IDX_oauth_grants_user', columnNames: ['user_id'] }),
        ],
        foreignKeys: [
          cascade('oauth_client_id', 'oauth_clients', 'FK_oauth_grants_client'),
          cascade('user_id', 'users', 'FK_oauth_grants_user'),
        ],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'oauth_authorization_codes',
        columns: [
          id,
          varchar('code_hash', 64),
          int('grant_id'),
          varchar('redirect_uri', 2048),
          varchar('scopes', 255),
          varchar('code_challenge', 128),
          varchar('code_challenge_method', 10),
          datetime('created_at'),
          datetime('expires_at'),
          datetime('used_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'UQ_oauth_authorization_codes_hash',
            columnNames: ['code_hash'],
            isUnique: true,
          }),
          new TableIndex({
            name: 'IDX_oauth_authorization_codes_grant',
            columnNames: ['grant_id'],
          }),
        ],
        foreignKeys: [cascade('grant_id', 'oauth_grants', 'FK_oauth_authorization_codes_grant')],
      }),
    );

    await queryRunner.createTable(
      new Table({
        name: 'oauth_refresh_tokens',
        columns: [
          id,
          varchar('token_hash', 64),
          int('grant_id'),
          varchar('scopes', 255),
          datetime('created_at'),
          datetime('expires_at'),
          // Set when the token was exchanged for a new one: presenting it again is reuse.
          datetime('rotated_at', true),
          datetime('revoked_at', true),
        ],
        indices: [
          new TableIndex({
            name: 'UQ_oauth_refresh_tokens_hash',
            columnNames: ['token_hash'],
            isUnique: true,
          }),
          new TableIndex({ name: 'IDX_oauth_refresh_tokens_grant', columnNames: ['grant_id'] }),
        ],
        foreignKeys: [cascade('grant_id', 'oauth_grants', 'FK_oauth_refresh_tokens_grant')],
      }),
    );

    // access_tokens.grant_id. Plain ALTER TABLE rather than addColumn()/createForeignKey(), which
    // rebuild the whole table on SQLite; SQLite takes the foreign key inline in ADD COLUMN.
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query('ALTER TABLE `access_tokens` ADD COLUMN `grant_id` int NULL');
      await queryRunner.createIndex(
        'access_tokens',
        new TableIndex({ name: 'IDX_access_tokens_grant', columnNames: ['grant_id'] }),
      );
      await queryRunner.query(
        'ALTER TABLE `access_tokens` ADD CONSTRAINT `FK_access_tokens_grant` FOREIGN KEY (`grant_id`) REFERENCES `oauth_grants` (`id`) ON DELETE CASCADE',
      );
    } else {
      await queryRunner.query(
        'ALTER TABLE "access_tokens" ADD COLUMN "grant_id" integer NULL CONSTRAINT "FK_access_tokens_grant" REFERENCES "oauth_grants" ("id") ON DELETE CASCADE',
      );
      await queryRunner.createIndex(
        'access_tokens',
        new TableIndex({ name: 'IDX_access_tokens_grant', columnNames: ['grant_id'] }),
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.options.type === 'mysql') {
      await queryRunner.query(
        'ALTER TABLE `access_tokens` DROP FOREIGN KEY `FK_access_tokens_grant`',
      );
    }
    await queryRunner.dropIndex('access_tokens', 'IDX_access_tokens_grant');
    // SQLite cannot DROP a column that has a foreign key: dropColumn() rebuilds the table there.
    await queryRunner.dropColumn('access_tokens', 'grant_id');
    for (const table of [...NEW_TABLES].reverse()) await queryRunner.dropTable(table);
  }
}
