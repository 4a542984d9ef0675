import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
import { rawBoolean } from '../database/raw-values';
import { selectFirst } from '../database/select-arrays';
import { isSqlite } from '../database/transactions';
import { DEFAULT_TIME_ZONE, type PutSettingsDto, type SettingsView } from './settings.dto';
import { UserSettings } from './user-settings.entity';

const SETTINGS_SQL = 'SELECT time_zone, card FROM user_settings WHERE user_id = ?';
const UPSERT_SQL = {
  sqlite: `INSERT INTO user_settings (user_id, time_zone, card) VALUES (?, ?, ?)
    ON CONFLICT (user_id) DO UPDATE SET time_zone = excluded.time_zone, card = excluded.card`,
  mysql: `INSERT INTO user_settings (user_id, time_zone, card) VALUES (?, ?, ?)
    ON DUPLICATE KEY UPDATE time_zone = VALUES(time_zone), card = VALUES(card)`,
};

/** A user's settings (contract §20's preamble): the defaults until the first PUT. */
@Injectable()
export class SettingsService {
  private readonly upsertSql: string;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.upsertSql = isSqlite(dataSource) ? UPSERT_SQL.sqlite : UPSERT_SQL.mysql;
  }

  async get(userId: number): Promise<SettingsView> {
    const row = await selectFirst<{ time_zone: string; card: number | boolean }>(
      this.dataSource,
      SETTINGS_SQL,
      [userId],
    );
    return row
      ? { time_zone: row.time_zone, card: rawBoolean(row.card) }
      : { time_zone: DEFAULT_TIME_ZONE, card: false };
  }

  /** Sets the members given; the others keep their value. */
  async put(userId: number, changes: PutSettingsDto): Promise<SettingsView> {
    const current = await this.get(userId);
    const next = {
      time_zone: changes.time_zone ?? current.time_zone,
      card: changes.card ?? current.card,
    };
    await this.dataSource.query(this.upsertSql, [userId, next.time_zone, next.card ? 1 : 0]);
    return next;
  }

  /** `manager`: read in the caller's transaction (a scrobble's, which dates what it writes). */
  async timeZoneOf(userId: number, manager?: EntityManager): Promise<string> {
    if (!manager) return (await this.get(userId)).time_zone;
    const rows = await manager.query<{ time_zone: string }[]>(SETTINGS_SQL, [userId]);
    return rows[0]?.time_zone ?? DEFAULT_TIME_ZONE;
  }

  /** Forgets the user's settings, in the caller's transaction (erasing the user). */
  async forgetUser(manager: EntityManager, userId: number): Promise<void> {
    await manager.delete(UserSettings, { userId });
  }
}
