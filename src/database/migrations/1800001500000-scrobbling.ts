import { createHash } from 'node:crypto';
import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';

/** A nullable column as the entities declare it (NULLABLE, src/database/columns.ts). */
const NULLABLE = { isNullable: true, default: 'NULL' } as const;

const foreignKey = (name: string, column: string, table: string, onDelete = 'CASCADE') =>
  new TableForeignKey({
    name,
    columnNames: [column],
    referencedTableName: table,
    referencedColumnNames: ['id'],
    onDelete,
    onUpdate: 'RESTRICT',
  });

/** Compared as contract §21 says: NFKC, lower case, trimmed, whitespace collapsed (title-names.ts). */
function nameKey(name: string): string {
  const normalized = name.normalize('NFKC').toLowerCase().trim().replace(/\s+/g, ' ');
  return createHash('sha256').update(normalized).digest('hex');
}

/**
 * Version 1.2 (contract §21): scrobblers, their recent scrobbles (the duplicate window), the
 * unmatched requests and the user's mappings; the catalog's cross-reference ids and the keys of
 * the titles' names (title and synonyms), filled here for the titles already stored.
 */
export class Scrobbling1800001500000 implements MigrationInterface {
  name = 'Scrobbling1800001500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'title_refs',
        columns: [
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'kind', type: 'varchar', length: '8', isPrimary: true },
          { name: 'ref_id', type: 'integer', isPrimary: true },
          { name: 'title_id', type: 'integer' },
        ],
        indices: [
          new TableIndex({ name: 'IDX_title_refs_title', columnNames: ['media_type', 'title_id'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'title_names',
        columns: [
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'title_id', type: 'integer', isPrimary: true },
          { name: 'name_key', type: 'varchar', length: '64', isPrimary: true },
        ],
        indices: [
          new TableIndex({ name: 'IDX_title_names_key', columnNames: ['media_type', 'name_key'] }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'scrobblers',
        columns: [
          { name: 'id', type: 'varchar', length: '32', isPrimary: true },
          { name: 'user_id', type: 'integer' },
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'name', type: 'varchar', length: '64' },
          { name: 'server_user', type: 'varchar', length: '128', ...NULLABLE },
          { name: 'rewatches', type: 'boolean' },
          { name: 'visible', type: 'boolean' },
          { name: 'may_write_manga', type: 'boolean' },
          { name: 'client_id', type: 'varchar', length: '100', ...NULLABLE },
          { name: 'secret_hash', type: 'varchar', length: '64' },
          { name: 'created_at', type: 'datetime' },
          { name: 'last_used_at', type: 'datetime', ...NULLABLE },
        ],
        indices: [
          new TableIndex({ name: 'IDX_scrobblers_user', columnNames: ['user_id'] }),
          new TableIndex({
            name: 'UQ_scrobblers_secret',
            columnNames: ['secret_hash'],
            isUnique: true,
          }),
        ],
        foreignKeys: [foreignKey('FK_scrobblers_user', 'user_id', 'users')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'scrobble_recent',
        columns: [
          { name: 'scrobbler_id', type: 'varchar', length: '32', isPrimary: true },
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'title_id', type: 'integer', isPrimary: true },
          { name: 'episode', type: 'integer', isPrimary: true },
          { name: 'at_ms', type: 'bigint' },
        ],
        foreignKeys: [foreignKey('FK_scrobble_recent_scrobbler', 'scrobbler_id', 'scrobblers')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'scrobble_unmatched',
        columns: [
          {
            name: 'id',
            type: 'integer',
            isPrimary: true,
            isGenerated: true,
            generationStrategy: 'increment',
          },
          { name: 'user_id', type: 'integer' },
          { name: 'media_type', type: 'varchar', length: '5' },
          { name: 'key_hash', type: 'varchar', length: '64' },
          { name: 'series', type: 'varchar', length: '500' },
          { name: 'season', type: 'integer', ...NULLABLE },
          { name: 'episode', type: 'integer', ...NULLABLE },
          { name: 'volume', type: 'integer', ...NULLABLE },
          { name: 'ids', type: 'varchar', length: '200' },
          { name: 'kind', type: 'varchar', length: '8' },
          { name: 'visible', type: 'boolean' },
          { name: 'arrived_at_ms', type: 'bigint' },
        ],
        indices: [
          new TableIndex({
            name: 'IDX_scrobble_unmatched_key',
            columnNames: ['user_id', 'media_type', 'key_hash'],
          }),
          new TableIndex({
            name: 'IDX_scrobble_unmatched_arrived',
            columnNames: ['arrived_at_ms'],
          }),
        ],
        foreignKeys: [foreignKey('FK_scrobble_unmatched_user', 'user_id', 'users')],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'scrobble_mappings',
        columns: [
          { name: 'user_id', type: 'integer', isPrimary: true },
          { name: 'media_type', type: 'varchar', length: '5', isPrimary: true },
          { name: 'key_hash', type: 'varchar', length: '64', isPrimary: true },
          { name: 'series', type: 'varchar', length: '500' },
          { name: 'season', type: 'integer', ...NULLABLE },
          { name: 'title_id', type: 'integer' },
          { name: 'episode_offset', type: 'integer' },
        ],
        foreignKeys: [foreignKey('FK_scrobble_mappings_user', 'user_id', 'users')],
      }),
    );
    await this.fillTitleNames(queryRunner);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'scrobble_mappings',
      'scrobble_unmatched',
      'scrobble_recent',
      'scrobblers',
      'title_names',
      'title_refs',
    ]) {
      await queryRunner.dropTable(table);
    }
  }

  /** The key of each stored title's name, in batches (NFKC is not SQL). */
  private async fillTitleNames(queryRunner: QueryRunner): Promise<void> {
    const batch = 200;
    for (let after = { mediaType: '', id: 0 }; ;) {
      const rows = (await queryRunner.query(
        `SELECT media_type, id, title FROM titles
         WHERE media_type > ? OR (media_type = ? AND id > ?)
         ORDER BY media_type, id LIMIT ${batch}`,
        [after.mediaType, after.mediaType, after.id],
      )) as { media_type: string; id: number; title: string }[];
      if (rows.length === 0) return;
      const values = rows.map(() => '(?, ?, ?)').join(', ');
      await queryRunner.query(
        `INSERT INTO title_names (media_type, title_id, name_key) VALUES ${values}`,
        rows.flatMap((row) => [row.media_type, Number(row.id), nameKey(row.title)]),
      );
      const last = rows[rows.length - 1];
      after = { mediaType: last.media_type, id: Number(last.id) };
    }
  }
}
