import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The README and the pages under docs/ (issue 30 item 8): a short README, every relative link
 * and `#anchor` pointing at something that exists, and no page leaning on a folder the
 * repository does not have. Plain file reads, so it runs with the unit specs.
 */

const ROOT = resolve(__dirname, '..', '..');
const README = join(ROOT, 'README.md');
const DOCS = join(ROOT, 'docs');

/** README.md and every docs/*.md page, as absolute paths. */
function markdownFiles(): string[] {
  const pages = readdirSync(DOCS)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(DOCS, name));
  return [README, ...pages];
}

/**
 * The text with fenced code blocks blanked (line count kept), so `# comments` are no headings;
 * `unclosed` says whether the text ends inside a block (which would hide every later heading).
 */
function scanFences(markdown: string): { text: string; unclosed: boolean } {
  let fence: string | null = null;
  const text = markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (fence === null && marker !== undefined) {
        fence = marker;
        return '';
      }
      if (fence !== null) {
        if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
          fence = null;
        }
        return '';
      }
      return line;
    })
    .join('\n');
  return { text, unclosed: fence !== null };
}

function withoutFences(markdown: string): string {
  return scanFences(markdown).text;
}

/** GitHub's anchor of a heading: as github-slugger makes it from the heading's rendered text. */
function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML tags
    .replace(/`/g, '') // code spans: their content
    .replace(/(\*\*|__|\*)/g, ''); // emphasis markers
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings (duplicates numbered as GitHub does) and HTML ids. */
function anchorsOf(markdown: string): Set<string> {
  const text = withoutFences(markdown);
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of text.split('\n')) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = headingAnchor(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(match[1]);
  return anchors;
}

/** The targets of a page's inline and reference links, outside code blocks and code spans. */
function linkTargets(markdown: string): string[] {
  const text = withoutFences(markdown).replace(/`[^`]*`/g, '');
  const targets: string[] = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    targets.push(match[1]);
  }
  for (const match of text.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) {
    targets.push(match[1]);
  }
  return targets;
}

/** What is wrong with the relative links of the page at `file`, one message each. */
function brokenLinks(file: string, markdown: string): string[] {
  const problems: string[] = [];
  const name = relative(ROOT, file);
  for (const target of linkTargets(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) continue; // absolute URL
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
    const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
    const linked = pathPart === '' ? file : resolve(dirname(file), pathPart);
    if (linked !== file && !existsSync(linked)) {
      problems.push(`${name}: ${target}: no file ${relative(ROOT, linked)}`);
      continue;
    }
    if (anchor === null || anchor === '') continue;
    if (linked !== file && (statSync(linked).isDirectory() || !linked.endsWith('.md'))) {
      problems.push(`${name}: ${target}: an anchor into a file that is not a Markdown page`);
      continue;
    }
    const page = linked === file ? markdown : readFileSync(linked, 'utf8');
    if (!anchorsOf(page).has(anchor)) {
      problems.push(`${name}: ${target}: no heading with anchor #${anchor}`);
    }
  }
  return problems;
}

describe('README and docs/', () => {
  it('keep the README under 300 lines, with the two set-up commands', () => {
    const readme = readFileSync(README, 'utf8');
    expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThan(300);
    expect(readme).toContain('npm ci');
    expect(readme).toContain('npm test');
  });

  it('have no relative link to a missing file or #anchor', () => {
    const problems = markdownFiles().flatMap((file) =>
      brokenLinks(file, readFileSync(file, 'utf8')),
    );
    expect(problems).toEqual([]);
  });

  it('close every fenced code block they open', () => {
    const unclosed = markdownFiles()
      .filter((file) => scanFences(readFileSync(file, 'utf8')).unclosed)
      .map((file) => relative(ROOT, file));
    expect(unclosed).toEqual([]);
  });

  it('never refer to ../shared (the repository has no such folder)', () => {
    const mentions = markdownFiles()
      .filter((file) => readFileSync(file, 'utf8').includes('../shared'))
      .map((file) => relative(ROOT, file));
    expect(mentions).toEqual([]);
  });

  it('list every docs page in docs/README.md, the index by reader, linked from the README', () => {
    const index = readFileSync(join(DOCS, 'README.md'), 'utf8');
    const listed = new Set(linkTargets(index).map((target) => target.split('#')[0]));
    const unlisted = readdirSync(DOCS)
      .filter((name) => name.endsWith('.md') && name !== 'README.md')
      .filter((name) => !listed.has(name));
    expect(unlisted).toEqual([]);
    expect(linkTargets(readFileSync(README, 'utf8'))).toContain('docs/README.md');
  });

  describe('the checker itself', () => {
    it('makes anchors as GitHub does', () => {
      expect(headingAnchor('Why @node-oauth/oauth2-server')).toBe('why-node-oauthoauth2-server');
      expect(headingAnchor('1. Titles')).toBe('1-titles');
      expect(headingAnchor('Conditional reads (ETag, 304)')).toBe('conditional-reads-etag-304');
      expect(headingAnchor("Access tokens from the company's identity provider")).toBe(
        'access-tokens-from-the-companys-identity-provider',
      );
      expect(headingAnchor('Running on MySQL/MariaDB and Redis, several instances')).toBe(
        'running-on-mysqlmariadb-and-redis-several-instances',
      );
      expect(headingAnchor('`users delete` and `REDIS_URL`')).toBe('users-delete-and-redis_url');
      expect([...anchorsOf('# A\n\n```bash\n# not a heading\n```\n\n## A\n')]).toEqual([
        'a',
        'a-1',
      ]);
    });

    it('finds a missing page, a missing anchor, and leaves URLs and code alone', () => {
      const page = join(DOCS, 'example.md');
      const markdown = [
        '# Example',
        '[ok](#example) [ok](contract.md#1-titles) [ok](../LICENSE) [url](https://example.com/x#y)',
        '[gone](nowhere.md) [no anchor](contract.md#no-such-section) [self](#missing)',
        '`[code](not-a-link.md)`',
        '```',
        '[fenced](not-a-link-either.md)',
        '```',
      ].join('\n');
      expect(brokenLinks(page, markdown)).toEqual([
        'docs/example.md: nowhere.md: no file docs/nowhere.md',
        'docs/example.md: contract.md#no-such-section: no heading with anchor #no-such-section',
        'docs/example.md: #missing: no heading with anchor #missing',
      ]);
    });
  });
});
