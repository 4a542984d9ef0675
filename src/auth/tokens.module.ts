import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { AccessToken } from './access-token.entity';
import { TokensService } from './tokens.service';

@Module({
  imports: [UsersModule, TypeOrmModule.forFeature([AccessToken])],
  providers: [TokensService],
  exports: [TokensService],
})
export class TokensModule {}
