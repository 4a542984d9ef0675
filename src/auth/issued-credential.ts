import { Column, PrimaryGeneratedColumn } from 'typeorm';
import { DateTimeColumn } from '../database/columns';

/**
 * The columns every credential handed to a client shares, in its own table: access tokens, refresh
 * tokens and authorization codes each carry their scopes and lifetime. Stored by the hash of the
 * secret, never the secret itself; each table names that column itself.
 */
export abstract class IssuedCredential {
  @PrimaryGeneratedColumn()
  id: number;

  /** Space-separated scope names, as in OAuth 2.0. */
  @Column({ type: 'varchar', length: 255 })
  scopes: string;

  @DateTimeColumn('created_at')
  createdAt: Date;

  @DateTimeColumn('expires_at')
  expiresAt: Date;
}
