import { CommandGroup } from '../cli/command-group';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { ClientsService } from './clients.service';

@SubCommand({
  name: 'create',
  description:
    'Register an application; prints it as one JSON line, with the secret of a confidential client (shown once)',
})
export class CreateClientCommand extends CommandRunner {
  constructor(private readonly clients: ClientsService) {
    super();
  }

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
    process.stdout.write(`${JSON.stringify(printed)}\n`);
  }

  @Option({ flags: '--name <name>', description: 'Name shown on the consent page', required: true })
  parseName(value: string): string {
    return value;
  }

  @Option({
    flags: '--redirect-uri <uri>',
    description: 'A redirect URI, matched exactly; repeat the option for several',
    required: true,
  })
  parseRedirectUri(value: string, previous: string[] = []): string[] {
    return [...previous, value];
  }

  @Option({
    flags: '--public',
    description: 'A public client (browser or native app): no secret, PKCE alone',
  })
  parsePublic(): boolean {
    return true;
  }
}

@Command({
  name: 'clients',
  description: 'Manage OAuth client applications',
  subCommands: [CreateClientCommand],
})
export class ClientsCommand extends CommandGroup {}
