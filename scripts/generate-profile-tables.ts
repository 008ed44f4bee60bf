// Regenerates the generated sections of docs/profile.md from suites/requirements.json and the
// protocol constants in src/protocol/. Usage: npx tsx scripts/generate-profile-tables.ts [--check]
// With --check nothing is written; the exit code is 1 when docs/profile.md is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updateProfile } from '../src/protocol/profile-tables.js';
import { readCatalog } from '../src/protocol/requirements.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const profilePath = join(root, 'docs', 'profile.md');
const check = process.argv.includes('--check');

const current = readFileSync(profilePath, 'utf8');
const updated = updateProfile(current, readCatalog(join(root, 'suites', 'requirements.json')));

if (check) {
  if (updated !== current) {
    process.stderr.write('docs/profile.md is out of date: run npx tsx scripts/generate-profile-tables.ts\n');
    process.exit(1);
  }
  process.stdout.write('docs/profile.md is up to date\n');
} else if (updated === current) {
  process.stdout.write('docs/profile.md already up to date\n');
} else {
  writeFileSync(profilePath, updated);
  process.stdout.write('docs/profile.md updated\n');
}
