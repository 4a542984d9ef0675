import { Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { BelongsTo, CreatedAtColumn, DateTimeColumn, VarcharColumn } from '../database/columns';
import { User } from '../users/user.entity';

/**
 * A user of the company's identity provider (contract §19): the pair (`iss`, `sub`), never a
 * name, mapped to the local user its first valid token created.
 */
@Entity('external_identities')
@Index('UQ_external_identities_pair', ['issuer', 'subject'], { unique: true })
export class ExternalIdentity {
  @PrimaryGeneratedColumn()
  id: number;

  @VarcharColumn(255)
  issuer: string;

  @VarcharColumn(255)
  subject: string;

  @BelongsTo(() => User, 'user_id', 'user', {
    index: 'IDX_external_identities_user',
    foreignKey: 'FK_external_identities_user',
  })
  userId: number;
  user?: User;

  @CreatedAtColumn()
  createdAt: Date;

  /** Set by `tokens revoke --user`: JWTs issued (`iat`) before it are refused. */
  @DateTimeColumn('tokens_revoked_before', { nullable: true })
  tokensRevokedBefore: Date | null;
}
