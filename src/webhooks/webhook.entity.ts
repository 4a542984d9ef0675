import { Entity, PrimaryColumn } from 'typeorm';
import { CreatedAtColumn, VarcharColumn } from '../database/columns';

/** A receiver of rating events, managed with the `webhooks` CLI (contract §15). */
@Entity('webhooks')
export class Webhook {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id: string;

  @VarcharColumn(2048)
  url: string;

  /** Comma list of the event types it receives. */
  @VarcharColumn(64)
  events: string;

  /** `whsec_…` (Standard Webhooks): kept as is, since it signs every attempt. Never logged. */
  @VarcharColumn(64)
  secret: string;

  @CreatedAtColumn()
  createdAt: Date;
}
