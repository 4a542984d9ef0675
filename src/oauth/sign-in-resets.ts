import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SignInReset } from './entities/sign-in-reset.entity';
import { throttledAccount } from './throttled-account';

/** The OAuth module's record of sign-in throttle resets (`sign_in_resets`). */
@Injectable()
export class SignInResets {
  constructor(@InjectRepository(SignInReset) private readonly resets: Repository<SignInReset>) {}

  /** Attempts at signing in as `name` counted until `at` (Unix ms) no longer count. */
  async reset(name: string, at = Date.now()): Promise<void> {
    await this.resets.upsert({ account: throttledAccount(name), resetAt: at }, ['account']);
  }

  /** When the account's throttle was last reset (Unix ms); null when never (or long ago). */
  async resetAt(account: string): Promise<number | null> {
    const row = await this.resets.findOneBy({ account });
    return row ? row.resetAt : null;
  }
}
