import { isIP } from 'node:net';
import { Command, CommandRunner, Option, SubCommand } from 'nest-commander';
import { CommandGroup } from '../cli/command-group';
import { IpDenialRecords } from './ip-denial-records';

@SubCommand({
  name: 'list',
  description:
    'List the addresses denied for rejected User-Agents, one JSON line each: address, denied_at, until',
})
export class ListDenialsCommand extends CommandRunner {
  constructor(private readonly denials: IpDenialRecords) {
    super();
  }

  async run(): Promise<void> {
    for (const denial of await this.denials.list()) {
      process.stdout.write(`${JSON.stringify(denial)}\n`);
    }
  }
}

@SubCommand({
  name: 'lift',
  description:
    "Lift an address's denial from its next request on, on every instance; its past rejections are forgotten",
})
export class LiftDenialCommand extends CommandRunner {
  constructor(private readonly denials: IpDenialRecords) {
    super();
  }

  async run(_args: string[], options: { ip: string }): Promise<void> {
    if (!(await this.denials.lift(options.ip))) {
      throw new Error(`no denial of ${options.ip} is in force (see denials list)`);
    }
    process.stdout.write(`${JSON.stringify({ lifted: options.ip })}\n`);
  }

  @Option({
    flags: '--ip <address>',
    description: 'The address, as denials list shows it',
    required: true,
  })
  parseIp(value: string): string {
    if (isIP(value) === 0) throw new Error(`--ip must be an IPv4 or IPv6 address, got "${value}"`);
    return value;
  }
}

@Command({
  name: 'denials',
  description: 'Addresses denied for sending rejected User-Agents',
  subCommands: [ListDenialsCommand, LiftDenialCommand],
})
export class DenialsCommand extends CommandGroup {}
