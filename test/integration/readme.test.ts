// The README's commands for a clone resolve in the clone, at once: `npm <script>` names a script of
// package.json, `node bin/mcp-flow-conformance.js` runs the command from dist/ (what `npm ci`
// builds). None goes through `npx mcp-flow-conformance`, which in a clone first downloads the
// published package into npx's cache. Every `npx mcp-flow-conformance <command>` of the README (for
// installed users) names a command the CLI has.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { ensureDist, ROOT } from '../support/build.js';
import { recordingIo } from '../support/cli.js';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const MANIFEST = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; scripts: Record<string, string>; bin: Record<string, string> };

/** Command lines of the fenced sh blocks of a section (up to the next `## `), comments dropped. */
function commands(section: string): string[] {
  const start = README.indexOf(`## ${section}\n`);
  expect(start, section).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  const text = README.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) =>
    block[1]!
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

function runNode(args: string[]): Promise<{ status: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('close', (status) => resolve({ status, stdout }));
  });
}

describe("the README's commands", () => {
  beforeAll(() => void ensureDist(), 180_000);

  it('in a clone: npm scripts that exist and the bin from the clone, never npx mcp-flow-conformance', async () => {
    const clone = commands('Quick start');
    expect(clone.length).toBeGreaterThanOrEqual(4);
    const bin = `node ${MANIFEST.bin['mcp-flow-conformance']}`;
    expect(bin).toBe('node bin/mcp-flow-conformance.js');
    for (const line of clone) {
      expect(line, line).not.toMatch(/\bnpx\b/);
      if (line.startsWith('npm ')) {
        const [, script] = line.split(/\s+/);
        if (script !== 'ci') expect(Object.keys(MANIFEST.scripts), line).toContain(script);
      } else {
        expect(line.startsWith(`${bin} `), line).toBe(true);
      }
    }
    // The bin of the clone answers at once (no download): --version and --help.
    const version = await runNode([join(ROOT, MANIFEST.bin['mcp-flow-conformance']!), '--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toBe(MANIFEST.version);
    const help = clone.find((line) => line.endsWith(' --help'))!;
    const shown = await runNode(help.split(/\s+/).slice(1));
    expect(shown.status).toBe(0);
    expect(shown.stdout).toContain('mcp-flow-conformance server');
  });

  it('for installed users: every npx mcp-flow-conformance line names a command the CLI has', async () => {
    const io = recordingIo();
    expect(await main(['--help'], io)).toBe(0);
    const known = new Set([...io.stdout.matchAll(/^ {2}mcp-flow-conformance ([a-z-]+)/gm)].map((match) => match[1]!));
    const used = [...README.matchAll(/npx mcp-flow-conformance ([a-z][a-z-]*)/g)].map((match) => match[1]!);
    expect(used.length).toBeGreaterThan(10);
    for (const command of used) expect(known, command).toContain(command);
  });
});
