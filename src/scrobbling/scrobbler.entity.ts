import { Column, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { DateTimeColumn, FOREIGN_KEY, VarcharColumn } from '../database/columns';

/** A media server's (or any program's) credential to mark the user's episodes watched (contract §21). */
@Entity('scrobblers')
@Index('IDX_scrobblers_user', ['userId'])
@Index('UQ_scrobblers_secret', ['secretHash'], { unique: true })
export class Scrobbler {
  @PrimaryColumn({ type: 'varchar', length: 32 })
  id: string;

  @Column({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_scrobblers_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  @VarcharColumn(8)
  kind: string;

  @VarcharColumn(64)
  name: string;

  @VarcharColumn(128, { name: 'server_user', nullable: true })
  serverUser: string | null;

  @Column({ type: 'boolean' })
  rewatches: boolean;

  @Column({ type: 'boolean' })
  visible: boolean;

  /** The creating token also held `ratings.manga` (generic kind only). */
  @Column({ name: 'may_write_manga', type: 'boolean' })
  mayWriteManga: boolean;

  /** The OAuth client whose token created it (`client_id`); null for CLI or IdP tokens. */
  @VarcharColumn(100, { name: 'client_id', nullable: true })
  clientId: string | null;

  /** SHA-256 (hex) of the URL's secret: the secret itself is never stored. */
  @VarcharColumn(64, { name: 'secret_hash' })
  secretHash: string;

  @DateTimeColumn('created_at')
  createdAt: Date;

  @DateTimeColumn('last_used_at', { nullable: true })
  lastUsedAt: Date | null;
}
