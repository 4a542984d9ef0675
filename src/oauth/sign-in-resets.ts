import { Injectable, OnModuleInit, Optional } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { LessThan, Repository } from 'typeorm';
import { PurgeRegistry } from '../purges/purge-registry';
import { SignInReset } from './entities/sign-in-reset.entity';
import { LOGIN_THROTTLE, throttledAccount } from './login-throttle.service';

/** The OAuth module's record of sign-in throttle resets (`sign_in_resets`). */
@Injectable()
export class SignInResets implements OnModuleInit {
  constructor(
    @InjectRepository(SignInReset) private readonly resets: Repository<SignInReset>,
    // Absent in the CLI, which runs no purges.
    @Optional() private readonly registry?: PurgeRegistry,
  ) {}

  onModuleInit(): void {
    this.registry?.register({
      kind: 'sign_in_resets',
      // Older than a throttle window: every window it could reset has ended.
      purgeBatch: async (now, limit) => {
        const before = now.getTime() - LOGIN_THROTTLE.account.windowSeconds * 1000;
        const old = await this.resets.find({
          select: { account: true },
          where: { resetAt: LessThan(before) },
          order: { resetAt: 'ASC' },
          take: limit,
        });
        if (old.length > 0) await this.resets.delete(old.map((row) => row.account));
        return old.length;
      },
    });
  }

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
