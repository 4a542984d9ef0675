import { Injectable } from '@nestjs/common';
import { CommandGroup } from '../cli/command-group';
import { printJsonLine } from '../cli/output';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../cli/options';
import { toIsoSeconds } from '../common/timestamps';
import { ClientRemoval } from './client-removal';
import { ClientsService } from './clients.service';

/**
 * The `clients` sub-commands that go through ClientsService (@Injectable so that Nest sees its
 * constructor's types).
 */
@Injectable()
abstract class ClientCommand extends CommandRunner {
  constructor(protected readonly clients: ClientsService) {
    super();
  }
}

@SubCommand({
  name: 'create',
  description:
    'Register an application; prints it as one JSON line, with the secret of a confidential client (shown once)',
})
@Options(
  { flags: '--name <name>', description: 'Name shown on the consent page', required: true },
  {
    flags: '--redirect-uri <uri>',
    description: 'A redirect URI, matched exactly; repeat the option for several',
    required: true,
    parse: (value, previous: string[] = []) => [...previous, value],
  },
  {
    flags: '--public',
    description: 'A public client (browser or native app): no secret, PKCE alone',
  },
)
export class CreateClientCommand extends ClientCommand {
  async run(
    _args: string[],
    options: { name: string; redirectUri: string[]; public?: boolean },
  ): Promise<void> {
    const { client, secret } = await this.clients.create({
      name: options.name,
      redirectUris: options.redirectUri,
      isPublic: options.public === true,
    });
    const printed = {
      client_id: client.clientId,
      ...(secret === null ? {} : { client_secret: secret }),
      name: client.name,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: secret === null ? 'none' : 'client_secret_basic',
    };
    printJsonLine(printed);
  }
}

@SubCommand({
  name: 'list',
  description:
    'List the OAuth clients, one JSON line each: client_id, name, redirect_uris, token_endpoint_auth_method, created_at (no secret)',
})
export class ListClientsCommand extends ClientCommand {
  async run(): Promise<void> {
    for (const client of await this.clients.list()) {
      const printed = {
        client_id: client.clientId,
        name: client.name,
        redirect_uris: client.redirectUris,
        token_endpoint_auth_method: client.secretHash === null ? 'none' : 'client_secret_basic',
        created_at: toIsoSeconds(client.createdAt),
      };
      printJsonLine(printed);
    }
  }
}

@SubCommand({
  name: 'delete',
  arguments: '<client_id>',
  description:
    'Delete a client with its authorizations, codes, access and refresh tokens: refused from the next request on, on every instance',
})
export class DeleteClientCommand extends CommandRunner {
  constructor(private readonly removal: ClientRemoval) {
    super();
  }

  async run([clientId]: string[]): Promise<void> {
    await this.removal.delete(clientId);
    printJsonLine({ deleted: clientId });
  }
}

@SubCommand({
  name: 'rotate-secret',
  arguments: '<client_id>',
  description:
    'Give a confidential client a new secret, printed once as one JSON line; the old one stops working, tokens already issued keep working',
})
export class RotateClientSecretCommand extends ClientCommand {
  async run([clientId]: string[]): Promise<void> {
    const secret = await this.clients.rotateSecret(clientId);
    printJsonLine({ client_id: clientId, client_secret: secret });
  }
}

@Command({
  name: 'clients',
  description: 'Manage OAuth client applications',
  subCommands: [
    CreateClientCommand,
    ListClientsCommand,
    DeleteClientCommand,
    RotateClientSecretCommand,
  ],
})
export class ClientsCommand extends CommandGroup {}
