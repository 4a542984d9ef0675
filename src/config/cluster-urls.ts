/** A host and port of a multi-host URL (contract §23). */
export interface HostPort {
  host: string;
  port: number;
}

/** `mysql://user:pass@host1:3306,host2:3306/db`: the nodes of a Galera cluster, in order. */
export interface GaleraTarget {
  nodes: HostPort[];
  user: string;
  password: string;
  database: string;
  /** The query string, `?…` or empty, kept as given. */
  query: string;
}

/** `redis+sentinel://[:PASSWORD@]host1:26379,host2:26379/MASTER_NAME`. */
export interface SentinelTarget {
  sentinels: HostPort[];
  name: string;
  password: string | null;
}

// The WHATWG URL parser refuses a list of hosts, so these two forms are read by hand.
const MYSQL_MULTI_HOST = /^(?:mysql|mariadb):\/\/(?:([^@/]*)@)?([^/?#]*)\/([^?#]*)(\?[^#]*)?$/;
const SENTINEL = /^redis\+sentinel:\/\/(?:([^@/]*)@)?([^/?#]*)\/([^?#/]*)\/?$/;

/** True for a `mysql://` or `mariadb://` URL whose authority lists more than one host. */
export function isMultiHostMysqlUrl(raw: string): boolean {
  return /^(?:mysql|mariadb):\/\/[^/?#]*,/.test(raw);
}

/** The Galera target of a multi-host URL, or a problem naming what is wrong with it. */
export function parseGaleraUrl(raw: string): GaleraTarget | string {
  const usage = 'mysql://user:pass@host1:3306,host2:3306,host3:3306/db';
  const match = MYSQL_MULTI_HOST.exec(raw);
  if (!match) return `DATABASE_URL with several hosts must be ${usage}`;
  const [, credentials = '', hostList, database, query = ''] = match;
  const nodes = parseHostList(hostList, 3306);
  if (typeof nodes === 'string') return `DATABASE_URL names ${nodes} (expected ${usage})`;
  if (database === '') return `DATABASE_URL must name a database: ${usage}`;
  const [user, password = ''] = splitCredentials(credentials);
  if (user === null || password === null)
    return 'DATABASE_URL has a user name or password that is not valid percent-encoding';
  return { nodes, user, password: password ?? '', database: decode(database) ?? database, query };
}

/** The Sentinel target of a `redis+sentinel://` URL, or a problem naming what is wrong with it. */
export function parseSentinelUrl(raw: string): SentinelTarget | string {
  const usage = 'redis+sentinel://[:PASSWORD@]host1:26379,host2:26379,host3:26379/MASTER_NAME';
  const match = SENTINEL.exec(raw);
  if (!match) return `REDIS_URL must be ${usage}`;
  const [, credentials, hostList, name] = match;
  const sentinels = parseHostList(hostList, 26379);
  if (typeof sentinels === 'string') return `REDIS_URL names ${sentinels} (expected ${usage})`;
  if (name === '') return `REDIS_URL must name the Sentinels' primary: ${usage}`;
  let password: string | null = null;
  if (credentials !== undefined) {
    const [, secret] = splitCredentials(credentials);
    if (secret === null || secret === undefined || secret === '') {
      return `REDIS_URL has a password that is empty, not after a colon, or not valid percent-encoding (${usage})`;
    }
    password = secret;
  }
  return { sentinels, name: decode(name) ?? name, password };
}

function parseHostList(list: string, defaultPort: number): HostPort[] | string {
  const hosts: HostPort[] = [];
  for (const item of list.split(',')) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9._-]+)(?::(\d{1,5}))?$/.exec(item);
    const port = match?.[2] === undefined ? defaultPort : Number(match[2]);
    if (!match || port < 1 || port > 65535) {
      return `"${item}", which is not a host:port`;
    }
    hosts.push({ host: match[1].replace(/^\[(.*)\]$/, '$1'), port });
  }
  return hosts;
}

/** `user:password` percent-decoded; null where the encoding is broken. */
function splitCredentials(credentials: string): [string | null, string | null | undefined] {
  const colon = credentials.indexOf(':');
  if (colon < 0) return [decode(credentials), undefined];
  return [decode(credentials.slice(0, colon)), decode(credentials.slice(colon + 1))];
}

function decode(value: string): string | null {
  try {
    return decodeURIComponent(value);
  } catch {
    return null;
  }
}

/** A multi-host URL as it may be shown: the password masked, the query dropped. */
export function redactMultiHostUrl(raw: string): string {
  return raw.replace(/^([a-z+]+:\/\/[^:@/]*:)[^@/]*@/, '$1***@').replace(/[?#].*$/, '');
}
