// Checks the MCP specification quotes of every requirement's basis against a copy of the
// specification repository (modelcontextprotocol/modelcontextprotocol; the reference schemas are of
// commit b0f60ba5). Seed and official-schema quotes are checked by test/protocol/basis.test.ts.
//
//   npx tsx scripts/check-basis.ts --mcp-spec <checkout folder>
//   npx tsx scripts/check-basis.ts --mcp-spec-git <bare git folder> [--commit b0f60ba5]
//
// Exit code 1 when a quote is not on the page it names, 2 on bad usage.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageQuoteProblem } from '../src/protocol/basis.js';
import { BASIS_SOURCE_PATTERNS, readCatalog } from '../src/protocol/requirements.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const folder = option('--mcp-spec');
const gitDir = option('--mcp-spec-git');
const commit = option('--commit') ?? 'b0f60ba5';
if ((folder === undefined) === (gitDir === undefined)) {
  process.stderr.write('check-basis: give --mcp-spec <checkout> or --mcp-spec-git <git folder>\n');
  process.exit(2);
}

function page(version: string, path: string): string | undefined {
  const file = `docs/specification/${version}/${path}.mdx`;
  if (folder !== undefined) {
    const full = join(folder, file);
    return existsSync(full) ? readFileSync(full, 'utf8') : undefined;
  }
  try {
    return execFileSync('git', ['--git-dir', gitDir!, 'show', `${commit}:${file}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}

let checked = 0;
const problems: string[] = [];
for (const r of readCatalog(join(root, 'suites', 'requirements.json')).requirements) {
  for (const basis of r.basis ?? []) {
    const match = BASIS_SOURCE_PATTERNS.mcp.exec(basis.source);
    if (!match) continue;
    const text = page(match[1]!, match[2]!);
    checked++;
    if (text === undefined) problems.push(`${r.id}: no page docs/specification/${match[1]}/${match[2]}.mdx`);
    else {
      const problem = pageQuoteProblem(basis, text);
      if (problem !== undefined) problems.push(`${r.id}: ${problem}`);
    }
  }
}
for (const line of problems) process.stderr.write(`${line}\n`);
process.stdout.write(`${checked} MCP specification quote(s) checked, ${problems.length} not found\n`);
process.exit(problems.length > 0 ? 1 : 0);
