import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A user's settings (contract §20's preamble); a user without a row has the defaults. */
@Entity('user_settings')
export class UserSettings {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  userId: number;

  /** An IANA zone name, as the tz database spells it. */
  @Column({ name: 'time_zone', type: 'varchar', length: 64 })
  timeZone: string;

  @Column({ type: 'boolean' })
  card: boolean;
}
