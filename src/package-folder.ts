// The folders the package ships beside its code (schemas/, vectors/, wizards/, suites/), found by
// walking up from the calling module: the same lookup works from src/ under tsx and from
// dist/src/ once built.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder named `name` above `moduleUrl` that holds `marker` (a file inside it that
 * identifies the package's copy), or undefined when there is none.
 */
export function findPackageFolder(moduleUrl: string, name: string, marker: string): string | undefined {
  let folder = dirname(fileURLToPath(moduleUrl));
  for (;;) {
    const candidate = join(folder, name);
    if (existsSync(join(candidate, marker))) return candidate;
    const parent = dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}
