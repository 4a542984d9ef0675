import { Column, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { FOREIGN_KEY } from '../database/columns';

/** A user's settings (contract §20's preamble); a user without a row has the defaults. */
@Entity('user_settings')
export class UserSettings {
  @PrimaryColumn({ name: 'user_id', type: 'int' })
  @ForeignKey('users', { name: 'FK_user_settings_user', ...FOREIGN_KEY, onDelete: 'CASCADE' })
  userId: number;

  /** An IANA zone name, as the tz database spells it. */
  @Column({ name: 'time_zone', type: 'varchar', length: 64 })
  timeZone: string;

  @Column({ type: 'boolean' })
  card: boolean;
}
