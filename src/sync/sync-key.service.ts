import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { isUniqueViolation } from '../database/errors';
import { SyncKey } from './sync-key.entity';

const KEY_ID = 1;

/**
 * The key that signs sync cursors. It lives in the database, made once by whichever instance
 * needs it first, so that every instance and every restart accepts the same cursors.
 */
@Injectable()
export class SyncKeyService {
  private key: Promise<Buffer> | null = null;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  get(): Promise<Buffer> {
    this.key ??= this.load().catch((error: unknown) => {
      this.key = null;
      throw error;
    });
    return this.key;
  }

  private async load(): Promise<Buffer> {
    const keys = this.dataSource.getRepository(SyncKey);
    const existing = await keys.findOneBy({ id: KEY_ID });
    if (existing) return Buffer.from(existing.secret, 'hex');
    try {
      await keys.insert({ id: KEY_ID, secret: randomBytes(32).toString('hex') });
    } catch (error) {
      // Another instance made it first: use theirs.
      if (!isUniqueViolation(error)) throw error;
    }
    return Buffer.from((await keys.findOneByOrFail({ id: KEY_ID })).secret, 'hex');
  }
}
