// The `client` command in-process: option errors (one line naming the option, exit 2), the client
// command given after -- or with --command, and exit codes 0/1 with reports from a small registry
// against a fixture client (the official SDK over Streamable HTTP).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { parseClientArgs, runClient } from '../../src/cli/commands/client.js';
import { answerInitialize, CaseRegistry, defineCase, isInitializeRequest } from '../../src/harness/index.js';
import { parseJsonReport } from '../../src/report/index.js';
import { isRecord } from '../../src/wire/index.js';
import { recordingIo } from '../support/cli.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'clients', 'sdk-http-client.mjs');
const dir = mkdtempSync(join(tmpdir(), 'client-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const io = recordingIo();
  const code = await main(['client', ...args], io);
  return { code, stdout: io.stdout, stderr: io.stderr };
}

/** Passes when the client sends notifications/initialized after the initialize result (a fixture client does). */
const initialized = defineCase({
  id: 'cli/initialized',
  suite: 'cli',
  title: 'notifications/initialized follows the initialize result',
  requirements: ['CORE-LIFE-4'],
  scenario: { name: 'initialize' },
  async run(ctx) {
    const init = await ctx.next(isInitializeRequest);
    await answerInitialize(ctx.connection, init.message);
    const next = await ctx.next(undefined, { timeoutMs: ctx.scaled(5000) });
    ctx.check('CORE-LIFE-4', isRecord(next.message) && next.message.method === 'notifications/initialized', { message: 'notifications/initialized came next', actual: next.message });
  },
});

/** Fails on purpose: answers initialize with an error, then expects a tools/list that a correct client never sends. */
const failing = defineCase({
  id: 'cli/expects-too-much',
  suite: 'cli',
  title: 'a MUST the test breaks on purpose',
  requirements: ['CORE-LIFE-2'],
  scenario: { name: 'initialize' },
  async run(ctx) {
    await ctx.next(isInitializeRequest);
    ctx.check('CORE-LIFE-2', false, { message: 'broken on purpose' });
  },
});

function registry(...cases: ReturnType<typeof defineCase>[]): CaseRegistry {
  const r = new CaseRegistry(undefined, { role: 'client' });
  r.registerAll(cases);
  return r;
}

describe('client command: options', () => {
  it('takes the client command after -- or from --command, and refuses both or neither', () => {
    expect(parseClientArgs({ '--': ['node', 'c.js'] }).command).toEqual(['node', 'c.js']);
    expect(parseClientArgs({ command: "node 'my client.js' --flag" }).command).toEqual(['node', 'my client.js', '--flag']);
    expect(() => parseClientArgs({ command: 'node a.js', '--': ['node', 'b.js'] })).toThrow(/--command.*either/);
    expect(() => parseClientArgs({})).toThrow(/name the client under test/);
    expect(parseClientArgs({ list: true }).command).toBeUndefined();
  });

  it('names a bad option in one line and exits 2', async () => {
    const bad = await cli('--transport', 'stdio', '--', 'node', 'x.js');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--transport.*wt or http/);
    const http3 = await cli('--transport', 'http', '--http', '3', '--', 'node', 'x.js');
    expect(http3.code).toBe(2);
    expect(http3.stderr).toMatch(/--http.*needs --transport wt/);
    const none = await cli('--suite', 'lifecycle');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/name the client under test/);
  });

  it('a client command that cannot start is exit 2 with its name', async () => {
    const io = recordingIo();
    const code = await runClient({ transport: 'http', '--': [join(dir, 'no-such-client')] }, io, { registry: registry(initialized) });
    expect(code).toBe(2);
    expect(io.stderr).toMatch(/cannot start the client under test.*no-such-client/);
  });
});

describe('client command: runs', () => {
  it('exits 0 when every case passes and 1 on a failure, writing the reports', async () => {
    const io = recordingIo();
    const ok = await runClient({ transport: 'http', '--': [process.execPath, FIXTURE], 'timeout-scale': 2 }, io, { registry: registry(initialized) });
    expect(ok, io.stdout + io.stderr).toBe(0);
    expect(io.stdout).toMatch(/testing the client .*sdk-http-client\.mjs.* over Streamable HTTP/);
    expect(io.stdout.trimEnd().split('\n').at(-1)).toMatch(/^1 passed, 0 failed/);

    const failed = recordingIo();
    const json = join(dir, 'report.json');
    const code = await runClient({ transport: 'http', '--': [process.execPath, FIXTURE], json, 'timeout-scale': 2 }, failed, { registry: registry(initialized, failing) });
    expect(code).toBe(1);
    const report = parseJsonReport(readFileSync(json, 'utf8'));
    expect(report.target.role).toBe('client');
    expect(report.target.clientInfo).toEqual({ name: 'fixture-client', version: '1.2.3' });
    const bad = report.cases.find((c) => c.id === 'cli/expects-too-much')!;
    expect(bad.verdict).toBe('FAIL');
    expect(bad.rerun).toMatch(/^mcp-flow-conformance client --transport http --command .*sdk-http-client\.mjs.* --case cli\/expects-too-much/);
  });
});
