import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { isIPv4 } from 'node:net';
import { In, MoreThan, Repository } from 'typeorm';
import { toIsoSeconds } from '../common/timestamps';
import { IpDenial } from './ip-denial.entity';

/** A denial as `denials list` shows it. */
export interface ListedDenial {
  address: string;
  denied_at: string;
  until: string;
}

/**
 * The auth module's record of IP denials (`ip_denials`): written when a denial starts, read by the
 * IP-denial guard only for an address its counters say is denied, lifted by the CLI.
 */
@Injectable()
export class IpDenialRecords {
  constructor(@InjectRepository(IpDenial) private readonly denials: Repository<IpDenial>) {}

  async record(address: string, deniedAt: number, deniedUntil: number): Promise<void> {
    await this.denials.upsert({ address, deniedAt, deniedUntil }, ['address']);
  }

  /** When the address's denial ends (Unix ms); null when none is recorded (or it was lifted). */
  async deniedUntil(address: string): Promise<number | null> {
    const row = await this.denials.findOneBy({ address });
    return row ? row.deniedUntil : null;
  }

  /** The denials in force, the longest-running first. */
  async list(now = Date.now()): Promise<ListedDenial[]> {
    const rows = await this.denials.find({
      where: { deniedUntil: MoreThan(now) },
      order: { deniedAt: 'ASC', address: 'ASC' },
    });
    return rows.map((row) => ({
      address: row.address,
      denied_at: toIsoSeconds(new Date(row.deniedAt)),
      // Rounded up: the address is denied until then at the latest.
      until: toIsoSeconds(new Date(Math.ceil(row.deniedUntil / 1000) * 1000)),
    }));
  }

  /**
   * Lifts the address's denial, whichever way its IPv4 form is written (`203.0.113.7` or
   * `::ffff:203.0.113.7`, as a dual-stack socket reports it); false when none is in force.
   */
  async lift(address: string, now = Date.now()): Promise<boolean> {
    const forms = [...new Set([address, ...ipv4Forms(address)])];
    const result = await this.denials.delete({ address: In(forms), deniedUntil: MoreThan(now) });
    return (result.affected ?? 0) > 0;
  }
}

function ipv4Forms(address: string): string[] {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return [mapped[1]];
  return isIPv4(address) ? [`::ffff:${address}`] : [];
}
