import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ClientsService } from './clients.service';
import { OAuthClient } from './entities/oauth-client.entity';

/** Registered clients alone, for the admin CLI as well as the authorization server. */
@Module({
  imports: [TypeOrmModule.forFeature([OAuthClient])],
  providers: [ClientsService],
  exports: [ClientsService],
})
export class OAuthClientsModule {}
