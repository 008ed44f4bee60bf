// The package's own name and version, read from its package.json (two levels above this file in
// the sources, three in dist/), for --version and the reports.
import { readFileSync } from 'node:fs';

export const PACKAGE_NAME = 'mcp-flow-conformance';

let cached: string | undefined;

/** The version in package.json ('0.0.0' only if the file cannot be found, which a packed package never lacks). */
export function packageVersion(): string {
  if (cached !== undefined) return cached;
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === 'string') return (cached = manifest.version);
    } catch {
      // not here: try the next level
    }
  }
  return (cached = '0.0.0');
}
