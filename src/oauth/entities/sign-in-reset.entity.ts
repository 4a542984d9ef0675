import { Entity, PrimaryColumn } from 'typeorm';
import { MillisecondsColumn } from '../../database/columns';

/**
 * When the operator last reset an account's sign-in throttle (`users reset-sign-in`): attempts
 * counted before then no longer count, on every instance, whichever one holds the counter.
 */
@Entity('sign_in_resets')
export class SignInReset {
  /** The account as the throttle counts it (see throttledAccount). */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  account: string;

  @MillisecondsColumn('reset_at', 'IDX_sign_in_resets_at')
  resetAt: number;
}
