import { resolve } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { redactMultiHostUrl } from '../config/cluster-urls';
import { galeraNodesOf } from './galera-nodes';

/** A URL as it may be shown: the password masked, the query (which may hold credentials) dropped. */
export function redactUrl(raw: string): string {
  if (/^[a-z+]+:\/\/[^/?#]*,/.test(raw)) return redactMultiHostUrl(raw);
  const url = new URL(raw);
  if (url.password !== '') url.password = '***';
  url.search = '';
  url.hash = '';
  return url.toString();
}

/** The database as logs and the CLI name it: its kind and where it is, never a password. */
export function describeDatabase(options: DataSourceOptions): string {
  if (options.type === 'better-sqlite3') return `SQLite ${resolve(String(options.database))}`;
  const galera = galeraNodesOf(options);
  if (galera) return `MariaDB Galera ${galera.describe()}`;
  if (options.type === 'mysql' && options.url) return `MySQL/MariaDB ${redactUrl(options.url)}`;
  return options.type;
}
