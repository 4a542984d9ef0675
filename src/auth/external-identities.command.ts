import { CommandRunner, Option, SubCommand } from 'nest-commander';
import { ExternalIdentitiesService } from './external-identities.service';

@SubCommand({
  name: 'unblock',
  description:
    "Let the identity provider's user (iss, sub) of a deleted user in again: its next token creates a new user",
})
export class UnblockUserCommand extends CommandRunner {
  constructor(private readonly identities: ExternalIdentitiesService) {
    super();
  }

  async run(_args: string[], options: { iss: string; sub: string }): Promise<void> {
    if (!(await this.identities.unblock(options.iss, options.sub))) {
      throw new Error(`the pair iss=${options.iss} sub=${options.sub} is not blocked`);
    }
    process.stdout.write('unblocked\n');
  }

  @Option({ flags: '--iss <issuer>', description: 'The `iss` of its tokens', required: true })
  parseIssuer(value: string): string {
    return value;
  }

  @Option({ flags: '--sub <subject>', description: 'The `sub` of its tokens', required: true })
  parseSubject(value: string): string {
    return value;
  }
}
