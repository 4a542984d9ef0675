import { readFileSync } from 'node:fs';
import { join } from 'node:path';

let version: string | undefined;

/** The `version` of package.json (read from disk: the build's rootDir is src/). */
export function packageVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
  return version;
}
