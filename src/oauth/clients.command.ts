import { CommandGroup } from '../common/cli/command-group';
import { Command } from 'nest-commander';
import { deleteCommand, serviceCommand } from '../common/cli/service-command';
import { toIsoSeconds } from '../common/timestamps';
import { ClientRemoval } from './client-removal';
import { ClientsService } from './clients.service';

export const CreateClientCommand = serviceCommand(ClientsService, {
  className: 'CreateClientCommand',
  name: 'create',
  description:
    'Register an application; prints it as one JSON line, with the secret of a confidential client (shown once)',
  options: [
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
  ],
  run: async (clients, options: { name: string; redirectUri: string[]; public?: boolean }) => {
    const { client, secret } = await clients.create({
      name: options.name,
      redirectUris: options.redirectUri,
      isPublic: options.public === true,
    });
    return {
      client_id: client.clientId,
      ...(secret === null ? {} : { client_secret: secret }),
      name: client.name,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: secret === null ? 'none' : 'client_secret_basic',
    };
  },
});

export const ListClientsCommand = serviceCommand(ClientsService, {
  className: 'ListClientsCommand',
  name: 'list',
  description:
    'List the OAuth clients, one JSON line each: client_id, name, redirect_uris, token_endpoint_auth_method, created_at (no secret)',
  run: async (clients) =>
    (await clients.list()).map((client) => ({
      client_id: client.clientId,
      name: client.name,
      redirect_uris: client.redirectUris,
      token_endpoint_auth_method: client.secretHash === null ? 'none' : 'client_secret_basic',
      created_at: toIsoSeconds(client.createdAt),
    })),
});

export const DeleteClientCommand = deleteCommand(ClientRemoval, {
  className: 'DeleteClientCommand',
  arguments: '<client_id>',
  description:
    'Delete a client with its authorizations, codes, access and refresh tokens and the scrobblers its tokens created: refused from the next request on, on every instance',
});

export const RotateClientSecretCommand = serviceCommand(ClientsService, {
  className: 'RotateClientSecretCommand',
  name: 'rotate-secret',
  arguments: '<client_id>',
  description:
    'Give a confidential client a new secret, printed once as one JSON line; the old one stops working, tokens already issued keep working',
  run: async (clients, _options, [clientId]) => ({
    client_id: clientId,
    client_secret: await clients.rotateSecret(clientId),
  }),
});

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
