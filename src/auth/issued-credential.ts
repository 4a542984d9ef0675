import { Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, DateTimeColumn, VarcharColumn } from '../database/columns';

/**
 * The SHA-256 of a credential's secret, hex, in the column `name`: a presented secret finds its row
 * through the unique index `index`. The secret itself is never stored.
 */
export function SecretHashColumn(name: string, index: string): PropertyDecorator {
  return (target, property) => {
    VarcharColumn(64, { name })(target, property);
    Index(index, { unique: true })(target, property);
  };
}

/**
 * The columns every credential handed to a client shares, in its own table: access tokens, refresh
 * tokens and authorization codes each carry their scopes and lifetime. Stored by the hash of the
 * secret, never the secret itself; each table names that column itself.
 */
export abstract class IssuedCredential {
  @PrimaryGeneratedColumn()
  id: number;

  /** Space-separated scope names, as in OAuth 2.0. */
  @VarcharColumn(255)
  scopes: string;

  @CreatedAtColumn()
  createdAt: Date;

  @DateTimeColumn('expires_at')
  expiresAt: Date;
}
