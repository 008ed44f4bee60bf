// The `mock-server` command: --list-faults, option errors (exit 2), and the real command in a
// child process: stdio served to the official SDK Client and to raw messages, SIGTERM stops it
// cleanly (exit 0, temporary store removed) with sessions open.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { spawnStdio } from '../../src/transport/stdio/index.js';
import { connectWebTransport, initializeSession } from '../../src/transport/webtransport/index.js';
import { DEADLINE, rawClient, runRegistration, type Message } from '../peer/server/start/support.js';
import { isHttp3Available } from '../../src/transport/webtransport/index.js';
import { cliArgs, recordingIo } from '../support/cli.js';

/** The HTTP/3 refusal can only be seen where the optional addon is absent (as on machines without network at install). */
const http3Installed = await isHttp3Available();

async function run(...args: string[]) {
  const io = recordingIo();
  const code = await main(['mock-server', ...args], io);
  return { code, io };
}

describe('mock-server in-process', () => {
  it('--list-faults prints every catalog entry with its requirement ID and description, and exits 0', async () => {
    const { code, io } = await run('--list-faults');
    expect(code).toBe(0);
    const lines = io.stdout.trimEnd().split('\n');
    const catalog = mockServerFaultCatalog();
    expect(lines).toHaveLength(catalog.length);
    catalog.forEach((entry, index) => {
      expect(lines[index]).toMatch(new RegExp(`^${entry.name} +${entry.requirement} +\\[${entry.layer}\\] `));
      expect(lines[index]!.endsWith(entry.description)).toBe(true);
    });
  });

  it.each([
    [['--transport', 'http', '--fault', 'ping-non-empty-reslt'], /unknown fault "ping-non-empty-reslt" \(did you mean "ping-non-empty-result"/],
    [['--transport', 'wt', '--fault', 'start-without-state', '--fault', 'nope-nope'], /unknown fault "nope-nope"/],
    [['--port', '1'], /--transport is required/],
    [['--transport', 'tcp'], /transport.*tcp|Choices/],
    [['--transport', 'wt', '--port', 'abc'], /--port must be an integer/],
    [['--transport', 'wt', '--encoding-preference', 'cbor,xml'], /encoding-preference: unknown encoding "xml"/],
    [['--transport', 'wt', '--max-message-size', '0'], /max-message-size: must be a positive integer/],
    [['--transport', 'http', '--kept-message-bytes', '1.5'], /kept-message-bytes: must be a whole number of bytes/],
    [['--transport', 'wt', '--cert', 'only-cert.pem'], /key: give --cert and --key together/],
    [['--transport', 'wt', '--wizard', '/nonexistent/wizard.json'], /wizard\.json/],
  ])('%j exits 2 naming the problem', async (args, message) => {
    const { code, io } = await run(...args);
    expect(code).toBe(2);
    expect(io.stderr).toMatch(message);
    expect(io.stdout).toBe('');
  });

  it.skipIf(http3Installed)('--http 3 without the optional HTTP/3 package exits 2 saying how to get it', async () => {
    const { code, io } = await run('--transport', 'wt', '--http', '3');
    expect(code).toBe(2);
    expect(io.stderr).toMatch(/@fails-components\/webtransport-transport-http3-quiche/);
    expect(io.stderr).toMatch(/--http 2/);
  });

  it('a port in use exits 2 naming it', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    try {
      const { code, io } = await run('--transport', 'http', '--port', String(port));
      expect(code).toBe(2);
      expect(io.stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});

/** Children a test started and what closes its clients; whatever a failing test left is ended here. */
const children: ChildProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.allSettled(cleanups.splice(0).map((cleanup) => cleanup()));
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** Starts the CLI as a child process and waits for its "listening on" lines. */
async function startCli(...args: string[]): Promise<{ child: ChildProcess; banner: string; output: () => string; exited: Promise<number | null> }> {
  const child = spawn(process.execPath, cliArgs('mock-server', ...args), { stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const check = () => (/faults on: .*\n/.test(out) ? resolve() : undefined);
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    void exited.then(() => reject(new Error(`the CLI exited before listening:\n${out}`)));
  });
  return { child, banner: out, output: () => out, exited };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('mock-server as a process', () => {
  it('--transport stdio serves the official SDK Client (tools/list, echo), with what it serves on stderr', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: cliArgs('mock-server', '--transport', 'stdio'), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    cleanups.push(() => client.close());
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'registration']));
    const echoed = await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } });
    expect(JSON.stringify(echoed.content)).toContain('over stdio');
    await client.close();
    expect(stderr).toContain('mock server listening on stdio: (stdio)');
    expect(stderr).toMatch(/wizards: booking, file-export, registration/);
  });

  it('--transport stdio runs a wizard end to end through raw messages, then exits 0 when stdin ends', async () => {
    const connection = await spawnStdio([process.execPath, ...cliArgs('mock-server', '--transport', 'stdio', '--fault', 'ping-non-empty-result')]);
    cleanups.push(() => connection.close());
    await connection.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    const init = (await connection.next((r) => (r.message as Message).id === 0, DEADLINE)).message as Message;
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const client = rawClient(connection, init.result);
    await runRegistration(client);
    expect(Object.keys((await client.call('ping')).result).length).toBeGreaterThan(0);
    await connection.close();
    expect((await connection.stdio!.exited).code).toBe(0);
    expect(connection.stdio!.stderrLines().join('\n')).toContain('faults on: ping-non-empty-result');
  });

  it('--transport http: SIGTERM stops it cleanly (exit 0) and removes the temporary store', async () => {
    const { child, banner, output, exited } = await startCli('--transport', 'http');
    const url = /listening on (http:\/\/\S+)/.exec(banner)![1]!;
    const store = /fastworkflow store: (\S+)/.exec(banner)![1]!;
    expect(existsSync(store)).toBe(true);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(response.status).toBe(200);
    await response.text();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('mock server stopped (SIGTERM)');
    expect(existsSync(store)).toBe(false);
    expect(isAlive(child.pid!)).toBe(false);
  });

  it('--transport stdio with stdin still open: SIGTERM stops it cleanly (exit 0)', async () => {
    const { child, output, exited } = await startCli('--transport', 'stdio');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output()).toContain('mock server stopped (SIGTERM)');
    expect(isAlive(child.pid!)).toBe(false);
  });

  it('--transport wt with a session open: SIGINT closes the session and exits 0', async () => {
    const { child, banner, output, exited } = await startCli('--transport', 'wt', '--log', '--encoding-preference', 'json');
    const url = /listening on (https:\/\/\S+)/.exec(banner)![1]!;
    const hash = /certificate sha-256: ([0-9a-f]{64})/.exec(banner)![1]!;
    const connection = await connectWebTransport(url, { certificateHash: hash });
    cleanups.push(() => connection.close());
    const { transport } = await initializeSession(connection, { timeoutMs: DEADLINE.timeoutMs });
    expect(transport?.encoding).toBe('json');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect((await connection.closed).initiator).not.toBe('local');
    expect(output()).toMatch(/wt#1 <- request initialize id=0 \[json\]/);
    expect(output()).toContain('mock server stopped (SIGINT)');
  });
});
