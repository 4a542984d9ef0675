import { CommandRunner, SubCommand } from 'nest-commander';
import { Options } from '../common/cli/options';
import { ExternalIdentitiesService } from './external-identities.service';

@SubCommand({
  name: 'unblock',
  description:
    "Let the identity provider's user (iss, sub) of a deleted user in again: its next token creates a new user",
})
@Options(
  { flags: '--iss <issuer>', description: 'The `iss` of its tokens', required: true },
  { flags: '--sub <subject>', description: 'The `sub` of its tokens', required: true },
)
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
}
