import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { expiringRowsPurge } from '../purges/purge-registry';
import { SignInReset } from './entities/sign-in-reset.entity';
import { LOGIN_THROTTLE } from './login-throttle.service';
import { SignInResets } from './sign-in-resets';

/** Resets of the sign-in throttle, for the consent page and the admin CLI (`users reset-sign-in`). */
@Module({
  imports: [TypeOrmModule.forFeature([SignInReset])],
  providers: [
    SignInResets,
    // Older than a throttle window: every window it could reset has ended.
    expiringRowsPurge(
      SignInReset,
      'sign_in_resets',
      'resetAt',
      (now) => now.getTime() - LOGIN_THROTTLE.account.windowSeconds * 1000,
    ),
  ],
  exports: [SignInResets],
})
export class SignInResetsModule {}
