/** Tools and libraries, not applications (decisions §4); operators add more with UA_BLOCKLIST. */
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

/** Why a User-Agent is rejected, or null when it identifies an application. */
export function userAgentRejection(
  userAgent: string | undefined,
  blocklist: ReadonlySet<string>,
): string | null {
  if (userAgent === undefined || userAgent.trim() === '') return 'the User-Agent header is missing';
  const match = USER_AGENT_FORM.exec(userAgent.trim());
  if (!match) return 'the User-Agent header is not of the form <AppName>/<version> (<contact>)';
  if (blocklist.has(match[1].toLowerCase())) {
    return `"${match[1]}" names a generic HTTP tool or library, not your application`;
  }
  return null;
}

export function buildBlocklist(extra: readonly string[]): ReadonlySet<string> {
  return new Set([...GENERIC_USER_AGENTS, ...extra].map((name) => name.toLowerCase()));
}
