import { Injectable } from '@nestjs/common';
import { isIP } from 'node:net';
import { Command, CommandRunner, SubCommand } from 'nest-commander';
import { CommandGroup } from '../cli/command-group';
import { Options } from '../cli/options';
import { printJsonLine, printJsonLines } from '../cli/output';
import { IpDenialRecords } from './ip-denial-records';

/** The `denials` sub-commands (@Injectable so that Nest sees its constructor's types). */
@Injectable()
abstract class DenialCommand extends CommandRunner {
  constructor(protected readonly denials: IpDenialRecords) {
    super();
  }
}

@SubCommand({
  name: 'list',
  description:
    'List the addresses denied for rejected User-Agents, one JSON line each: address, denied_at, until',
})
export class ListDenialsCommand extends DenialCommand {
  async run(): Promise<void> {
    printJsonLines(await this.denials.list());
  }
}

@SubCommand({
  name: 'lift',
  description:
    "Lift an address's denial from its next request on, on every instance; its past rejections are forgotten",
})
@Options({
  flags: '--ip <address>',
  description: 'The address, as denials list shows it',
  required: true,
  parse: (value) => {
    if (isIP(value) === 0) throw new Error(`--ip must be an IPv4 or IPv6 address, got "${value}"`);
    return value;
  },
})
export class LiftDenialCommand extends DenialCommand {
  async run(_args: string[], options: { ip: string }): Promise<void> {
    if (!(await this.denials.lift(options.ip))) {
      throw new Error(`no denial of ${options.ip} is in force (see denials list)`);
    }
    printJsonLine({ lifted: options.ip });
  }
}

@Command({
  name: 'denials',
  description: 'Addresses denied for sending rejected User-Agents',
  subCommands: [ListDenialsCommand, LiftDenialCommand],
})
export class DenialsCommand extends CommandGroup {}
