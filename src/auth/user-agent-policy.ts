/** Tools and libraries, not applications (contract §4); operators add more with UA_BLOCKLIST. */
export const GENERIC_USER_AGENTS = [
  'curl',
  'wget',
  'python-requests',
  'python-urllib',
  'python',
  'aiohttp',
  'httpx',
  'axios',
  'node-fetch',
  'undici',
  'node',
  'nodejs',
  'got',
  'go-http-client',
  'okhttp',
  'java',
  'apache-httpclient',
  'postmanruntime',
  'insomnia',
  'httpie',
  'libwww-perl',
  'mozilla',
  'dart',
  'ruby',
  'guzzlehttp',
  'deno',
  'bun',
  'superagent',
  'node-superagent',
  'scrapy',
  'restsharp',
  'reqwest',
  'hyper',
  'faraday',
  'rest-client',
  'http.rb',
  'libcurl',
  'php',
  'perl',
  'powershell',
  'winhttp',
  'cpp-httplib',
  'dotnet',
  'ky',
  'fetch',
  'urllib3',
  'requests',
  'lwp-request',
];

/** `<AppName>/<version> (<contact>)`: name and version without spaces or slashes, any non-empty contact. */
const USER_AGENT_FORM = /^([^\s/()]+)\/([^\s/()]+) \((.*\S.*)\)$/;

export const USER_AGENT_EXAMPLE = 'ListSync/2.1.0 (admin@listsync.example)';

/**
 * The header that names the application: `Api-User-Agent` when the request has one (browsers
 * cannot set `User-Agent`; the convention of Wikimedia's APIs), `User-Agent` otherwise
 * (contract §17).
 */
export function applicationIdentity(headers: Record<string, string | string[] | undefined>): {
  header: 'Api-User-Agent' | 'User-Agent';
  value: string | undefined;
} {
  const api = headers['api-user-agent'];
  if (api !== undefined) {
    return { header: 'Api-User-Agent', value: Array.isArray(api) ? api.join(', ') : api };
  }
  const plain = headers['user-agent'];
  return { header: 'User-Agent', value: Array.isArray(plain) ? plain.join(', ') : plain };
}

/** Why a User-Agent (or Api-User-Agent) is rejected, or null when it identifies an application. */
export function userAgentRejection(
  userAgent: string | undefined,
  blocklist: ReadonlySet<string>,
  header = 'User-Agent',
): string | null {
  if (userAgent === undefined || userAgent.trim() === '') return `the ${header} header is missing`;
  const match = USER_AGENT_FORM.exec(userAgent.trim());
  if (!match) return `the ${header} header is not of the form <AppName>/<version> (<contact>)`;
  if (blocklist.has(match[1].toLowerCase())) {
    return `"${match[1]}" names a generic HTTP tool or library, not your application`;
  }
  return null;
}

export function buildBlocklist(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...GENERIC_USER_AGENTS, ...extra].map((name) => name.toLowerCase()));
}
