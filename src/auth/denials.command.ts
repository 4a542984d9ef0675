import { isIP } from 'node:net';
import { Command } from 'nest-commander';
import { CommandGroup } from '../common/cli/command-group';
import { serviceCommand } from '../common/cli/service-command';
import { IpDenialRecords } from './ip-denial-records';

export const ListDenialsCommand = serviceCommand(IpDenialRecords, {
  className: 'ListDenialsCommand',
  name: 'list',
  description:
    'List the addresses denied for rejected User-Agents, one JSON line each: address, denied_at, until',
  run: (denials) => denials.list(),
});

export const LiftDenialCommand = serviceCommand(IpDenialRecords, {
  className: 'LiftDenialCommand',
  name: 'lift',
  description:
    "Lift an address's denial from its next request on, on every instance; its past rejections are forgotten",
  options: [
    {
      flags: '--ip <address>',
      description: 'The address, as denials list shows it',
      required: true,
      parse: (value) => {
        if (isIP(value) === 0)
          throw new Error(`--ip must be an IPv4 or IPv6 address, got "${value}"`);
        return value;
      },
    },
  ],
  run: async (denials, options: { ip: string }) => {
    if (!(await denials.lift(options.ip))) {
      throw new Error(`no denial of ${options.ip} is in force (see denials list)`);
    }
    return { lifted: options.ip };
  },
});

@Command({
  name: 'denials',
  description: 'Addresses denied for sending rejected User-Agents',
  subCommands: [ListDenialsCommand, LiftDenialCommand],
})
export class DenialsCommand extends CommandGroup {}
