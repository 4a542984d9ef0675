import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { TokensService } from '../auth/tokens.service';
import { runTransaction } from '../database/transactions';
import { ClientRegistrationError, ClientsService } from './clients.service';
import { GrantsService } from './grants.service';
import { ScrobblersService } from '../scrobbling/scrobblers.service';

/**
 * `clients delete`: the client with its grants, codes, refresh and access tokens and the
 * scrobblers its tokens created (contract §21), in one
 * transaction. Every request looks its token up in the database, so none of them works from the
 * next request on, on every instance.
 */
@Injectable()
export class ClientRemoval {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly clients: ClientsService,
    private readonly grants: GrantsService,
    private readonly accessTokens: TokensService,
    private readonly scrobblers: ScrobblersService,
  ) {}

  async delete(clientId: string): Promise<void> {
    const client = await this.clients.findByClientId(clientId);
    if (!client) throw new ClientRegistrationError(`no client with client_id "${clientId}"`);
    await runTransaction(this.dataSource, async (manager) => {
      await this.accessTokens.deleteOfClient(manager, client.clientId);
      await this.scrobblers.deleteOfClient(manager, client.clientId);
      await this.grants.deleteOfClient(manager, client.id);
      await this.clients.delete(manager, client.id);
    });
  }
}
