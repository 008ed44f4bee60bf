// The `proxy` command: usage errors (exit 2), an unreachable upstream (exit 2), a clean --once
// session (exit 0, reports and record written), a faulty server (violations printed live, exit 1),
// and `--listen stdio` spawned by the official SDK Client as its stdio server.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { readRecordFile } from '../../src/peer/proxy/index.js';
import { startMockServer, type RunningMockServer } from '../../src/peer/server/index.js';
import { cliArgs, recordingIo } from '../support/cli.js';
import { UNREACHABLE_PORT } from '../support/unreachable.js';
import { runSdkSession } from '../peer/proxy/support.js';

const TEST_DEADLINE_MS = 120_000;
/** Liveness bound for the proxy to print where it listens. */
const LISTEN_DEADLINE_MS = 30_000;

let folder: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'cli-proxy-'));
});
afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
});

async function usage(...args: string[]) {
  const io = recordingIo();
  const code = await main(['proxy', ...args], io);
  return { code, io };
}

describe('proxy usage errors exit 2 naming the problem', () => {
  it.each([
    [['--upstream', 'http://127.0.0.1:9/mcp'], /--listen: is required/],
    [['--listen', 'tcp:80', '--upstream', 'http://127.0.0.1:9/mcp'], /--listen: "tcp:80": unknown transport "tcp"/],
    [['--listen', 'http:99999', '--upstream', 'http://127.0.0.1:9/mcp'], /port "99999" is not an integer in 0\.\.65535/],
    [['--listen', 'http'], /--upstream: name the server with --upstream URL or --upstream-stdio "command"/],
    [['--listen', 'http', '--upstream', 'http://a/mcp', '--upstream-stdio', 'node x.js'], /give either --upstream or --upstream-stdio, not both/],
    [['--listen', 'http', '--upstream', 'ftp://a/mcp'], /--upstream: "ftp:\/\/a\/mcp" is neither https:/],
    [['--listen', 'http', '--upstream', 'http://a/mcp', '--cert-hash', 'ab'], /--cert-hash: pins a WebTransport certificate/],
    [['--listen', 'http', '--upstream', 'https://a/mcp', '--cert-hash', 'xyz'], /--cert-hash: /],
    [['--listen', 'http', '--upstream-stdio', 'node x.js', '--ca', 'ca.pem'], /--ca: has no meaning for --upstream-stdio/],
    [['--listen', 'http', '--upstream', 'http://a/mcp', '--json', '-'], /^error: --json: the proxy writes its reports to files \(standard output is its log\)/],
  ])('%j', async (args, message) => {
    const { code, io } = await usage(...args);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(message);
    expect(io.stdout).toBe('');
  });

  it('an upstream nothing listens on', async () => {
    const port = UNREACHABLE_PORT;
    const { code, io } = await usage('--listen', 'http', '--upstream', `http://127.0.0.1:${port}/mcp`);
    expect(code).toBe(2);
    expect(io.stderr).toContain(`error: upstream http://127.0.0.1:${port}/mcp (http): cannot connect to 127.0.0.1:${port}: ECONNREFUSED`);
  });
});

/** Runs `proxy` in-process; resolves with its URL once printed, and with the exit code at the end. */
function startCommand(args: string[]) {
  const io = recordingIo();
  const exited = main(['proxy', ...args], io);
  const listening = (async () => {
    const deadline = Date.now() + LISTEN_DEADLINE_MS;
    for (;;) {
      const match = /proxy listening on (\S+)/.exec(io.stdout);
      if (match) return match[1]!;
      if (Date.now() > deadline) throw new Error(`the proxy printed no URL within ${LISTEN_DEADLINE_MS} ms:\n${io.stdout}\n${io.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return { io, exited, listening };
}

describe('proxy --once between the SDK Client and the mock server', () => {
  let clean: RunningMockServer;
  let faulty: RunningMockServer;

  beforeAll(async () => {
    clean = await startMockServer({ transport: 'http', port: 0, fastworkflow: false });
    faulty = await startMockServer({ transport: 'http', port: 0, fastworkflow: false, faults: ['tool-content-without-type'] });
  }, TEST_DEADLINE_MS);
  afterAll(async () => {
    await clean?.close();
    await faulty?.close();
  });

  it(
    'a clean session: exit 0, the record and the JSON, JUnit and HTML reports written',
    async () => {
      const record = join(folder, 'clean.ndjson');
      const reports = join(folder, 'clean-reports');
      const command = startCommand(['--listen', 'http', '--upstream', clean.url, '--once', '--record', record, '--reports', reports]);
      const url = await command.listening;
      expect(command.io.stdout).toContain(`forwarding to ${clean.url} (http) (one session)`);
      const outcome = await runSdkSession('http', url, undefined, { flow: true });
      expect(outcome.failures).toEqual([]);
      expect(await command.exited).toBe(0);
      expect(command.io.stdout).not.toContain('VIOLATION');
      expect(command.io.stdout).toMatch(/proxy stopped \(the session ended\): 1 session\(s\), 0 violation\(s\) \(0 MUST\)/);
      const sessions = await readRecordFile(record);
      expect(sessions).toHaveLength(1);
      const json = JSON.parse(await readFile(join(reports, 'report.json'), 'utf8')) as { result?: { summary: { FAIL: number; PASS: number } }; summary?: { FAIL: number; PASS: number } };
      const summary = json.result?.summary ?? json.summary;
      expect(summary?.FAIL).toBe(0);
      expect(summary?.PASS).toBeGreaterThan(10);
      expect(await readFile(join(reports, 'junit.xml'), 'utf8')).toContain('proxy/CORE-LIFE-3');
      expect(await readFile(join(reports, 'report.html'), 'utf8')).toContain('CORE-LIFE-3');
    },
    TEST_DEADLINE_MS,
  );

  it(
    'a faulty server: each violation printed live as one line, exit 1, the failing case in the JUnit report',
    async () => {
      const junit = join(folder, 'faulty.xml');
      const command = startCommand(['--listen', 'http', '--upstream', faulty.url, '--once', '--junit', junit]);
      const url = await command.listening;
      await runSdkSession('http', url, undefined, { stopOnFailure: true });
      expect(await command.exited).toBe(1);
      expect(command.io.stdout).toMatch(/^VIOLATION \[session 1 #\d+\] server->client response \d+: CORE-TOOLS-3 \(MUST\) breaks schema .*tools-call\.result\.schema\.json at \/result\/content\/0/m);
      const xml = await readFile(junit, 'utf8');
      expect(xml).toMatch(/<testcase[^>]*name="[^"]*proxy\/CORE-TOOLS-3[^"]*"[\s\S]*?<failure/);
    },
    TEST_DEADLINE_MS,
  );
});

describe('proxy until SIGTERM', () => {
  let server: RunningMockServer;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'http', port: 0, fastworkflow: false });
  }, TEST_DEADLINE_MS);
  afterAll(async () => {
    await server?.close();
  });

  it(
    'serves sessions until SIGTERM, then writes the JSON report and exits 0',
    async () => {
      const json = join(folder, 'sigterm.json');
      const child = spawn(process.execPath, cliArgs('proxy', '--listen', 'http', '--upstream', server.url, '--json', json), { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const deadline = Date.now() + LISTEN_DEADLINE_MS;
        let url: string | undefined;
        while (url === undefined) {
          url = /proxy listening on (\S+)/.exec(stdout)?.[1];
          if (url === undefined && Date.now() > deadline) throw new Error(`no URL printed within ${LISTEN_DEADLINE_MS} ms:\n${stdout}\n${stderr}`);
          if (url === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        expect((await runSdkSession('http', url, undefined)).failures).toEqual([]);
        expect((await runSdkSession('http', url, undefined)).failures).toEqual([]);
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(stdout).toMatch(/proxy stopped \(SIGTERM\): 2 session\(s\), 0 violation\(s\)/);
        const report = JSON.parse(await readFile(json, 'utf8')) as Record<string, unknown>;
        expect(JSON.stringify(report)).toContain('proxy/CORE-LIFE-1');
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    },
    TEST_DEADLINE_MS,
  );
});

describe('proxy --listen stdio, spawned by the client', () => {
  let server: RunningMockServer;
  beforeAll(async () => {
    server = await startMockServer({ transport: 'http', port: 0, fastworkflow: false });
  }, TEST_DEADLINE_MS);
  afterAll(async () => {
    await server?.close();
  });

  it(
    'serves the SDK StdioClientTransport, says everything on stderr, and ends with the client',
    async () => {
      const record = join(folder, 'stdio.ndjson');
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: cliArgs('proxy', '--listen', 'stdio', '--upstream', server.url, '--record', record),
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const client = new Client({ name: 'stdio-through-proxy', version: '1.0.0' });
      await client.connect(transport, { timeout: LISTEN_DEADLINE_MS });
      const { tools } = await client.listTools(undefined, { timeout: LISTEN_DEADLINE_MS });
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const called = await client.callTool({ name: 'echo', arguments: { text: 'via stdio' } }, undefined, { timeout: LISTEN_DEADLINE_MS });
      expect(JSON.stringify(called.content)).toContain('via stdio');
      await client.close();
      // The proxy writes its record once stdin ended and the session was judged.
      const deadline = Date.now() + LISTEN_DEADLINE_MS;
      let sessions: Awaited<ReturnType<typeof readRecordFile>> | undefined;
      while (!sessions) {
        sessions = await readRecordFile(record).catch(() => undefined);
        if (!sessions && Date.now() > deadline) throw new Error(`no record within ${LISTEN_DEADLINE_MS} ms; stderr:\n${stderr}`);
        if (!sessions) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(sessions[0]!.entries.some((entry) => (entry.decoded as { method?: string } | undefined)?.method === 'tools/call')).toBe(true);
      expect(stderr).toContain('proxy listening on stdio: (stdio)');
      expect(stderr).not.toContain('VIOLATION');
    },
    TEST_DEADLINE_MS,
  );
});
