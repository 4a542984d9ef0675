import { Module } from '@nestjs/common';
import { PassportModule } from '@nestjs/passport';
import { BearerAuthGuard } from './bearer-auth.guard';
import { BearerStrategy } from './bearer.strategy';
import { IpDenialGuard } from './ip-denial.guard';
import { IpDenialService } from './ip-denial.service';
import { IpDenialsModule } from './ip-denials.module';
import { ScopesGuard } from './scopes.guard';
import { TokensModule } from './tokens.module';
import { UserAgentGuard } from './user-agent.guard';

@Module({
  imports: [PassportModule, TokensModule, IpDenialsModule],
  providers: [
    BearerStrategy,
    IpDenialService,
    IpDenialGuard,
    UserAgentGuard,
    BearerAuthGuard,
    ScopesGuard,
  ],
  exports: [IpDenialGuard, UserAgentGuard, BearerAuthGuard, ScopesGuard],
})
export class AuthModule {}
