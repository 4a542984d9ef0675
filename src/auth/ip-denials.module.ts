import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { expiringRowsPurge } from '../purges/purge-registry';
import { IpDenialRecords } from './ip-denial-records';
import { IpDenial } from './ip-denial.entity';

/** The record of IP denials, for the server's guard and the admin CLI (`denials`). */
@Module({
  imports: [TypeOrmModule.forFeature([IpDenial])],
  providers: [
    IpDenialRecords,
    expiringRowsPurge(IpDenial, 'ip_denials', 'deniedUntil', (now) => now.getTime()),
  ],
  exports: [IpDenialRecords],
})
export class IpDenialsModule {}
