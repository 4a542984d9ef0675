import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import { CreatedAtColumn, VarcharColumn } from '../../database/columns';

/** An application registered with `clients create`. */
@Entity('oauth_clients')
@Index('UQ_oauth_clients_client_id', ['clientId'], { unique: true })
export class OAuthClient {
  @PrimaryGeneratedColumn()
  id: number;

  /** The public identifier the application sends as `client_id`. */
  @VarcharColumn(64, { name: 'client_id' })
  clientId: string;

  @VarcharColumn(100)
  name: string;

  /** SHA-256 of the secret, hex; null for a public client, which authenticates by PKCE alone. */
  @VarcharColumn(64, { name: 'secret_hash', nullable: true })
  secretHash: string | null;

  /** Matched exactly against `redirect_uri`. */
  @Column({ name: 'redirect_uris', type: 'simple-json' })
  redirectUris: string[];

  @CreatedAtColumn()
  createdAt: Date;
}
