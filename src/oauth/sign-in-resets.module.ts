import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { SignInReset } from './entities/sign-in-reset.entity';
import { SignInResets } from './sign-in-resets';

/** Resets of the sign-in throttle, for the consent page and the admin CLI (`users reset-sign-in`). */
@Module({
  imports: [TypeOrmModule.forFeature([SignInReset])],
  providers: [SignInResets],
  exports: [SignInResets],
})
export class SignInResetsModule {}
