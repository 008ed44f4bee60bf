// stdio: the SDK's transports as the reference, the raw child-process connection against the same SDK
// server, and children that misbehave (non-JSON lines, ignored signals, leftover grandchildren).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { spawnStdio, type StdioClientConnection, type StdioClientOptions } from '../../../src/transport/stdio/client.js';
import { ConnectFailedError, ConnectionClosedError } from '../../../src/transport/errors.js';
import type { ReceivedMessage } from '../../../src/transport/connection.js';

const SDK_SERVER = fileURLToPath(new URL('../../fixtures/http-stdio/sdk-server.ts', import.meta.url));
const WAIT = { timeoutMs: 30_000 };
const idIs = (id: unknown) => (received: ReceivedMessage) => (received.message as { id?: unknown }).id === id;
const open: { close(): Promise<void> }[] = [];

afterAll(async () => {
  await Promise.allSettled(open.map((item) => item.close()));
});

async function spawn(command: string | string[], options?: StdioClientOptions): Promise<StdioClientConnection> {
  const connection = await spawnStdio(command, options);
  open.push(connection);
  return connection;
}

/** Argv words running an inline Node script. */
const nodeScript = (script: string) => [process.execPath, '-e', script];

/** Alive and not a zombie (a zombie has exited; only its parent's reaping is missing). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('stdio against the SDK server', () => {
  it('SDK client lists and calls tools over the SDK stdio transports', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    open.push(client);
    await client.connect(new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', SDK_SERVER], stderr: 'pipe' }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'over stdio' } })).content).toEqual([
      { type: 'text', text: 'over stdio' },
    ]);
  });

  it('raw connection initializes, lists and calls tools; stderr is captured; malformed bytes get no answer', async () => {
    // A generous close grace: the child must exit by itself once stdin closes, however loaded the machine.
    const connection = await spawn([process.execPath, '--import', 'tsx', SDK_SERVER], { closeGraceMs: WAIT.timeoutMs });
    expect(connection.stdio.pid).toBeGreaterThan(0);
    await connection.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    const init = await connection.next(idIs(1), WAIT);
    expect(init.message).toMatchObject({ result: { serverInfo: { name: 'fixture-sdk-server' } } });
    expect(init.channel).toEqual({ kind: 'stdio', fd: 'stdout' });
    await connection.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    await connection.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const list = await connection.next(idIs(2), WAIT);
    expect((list.message as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name)).toEqual(['echo', 'add']);

    // The SDK server drops a line that is not JSON (observed behaviour): the next answer is the ping's.
    await connection.sendRaw(new TextEncoder().encode('{"jsonrpc":"2.0","id":\n'));
    await connection.stdio.writeLine(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    const next = await connection.next(undefined, WAIT);
    expect(next.message).toEqual({ jsonrpc: '2.0', id: 3, result: {} });

    // stderr is its own pipe, so its line may trail the stdout answers.
    await expect.poll(() => connection.stdio.stderrLines(), { timeout: 20_000 }).toContain('fixture-sdk-server: ready on stdio');
    expect(connection.faults()).toEqual([]);
    const sentRaw = connection.transcript.entries().find((entry) => entry.direction === 'sent' && entry.decoded === undefined);
    expect(Buffer.from(sentRaw!.hex!, 'hex').toString()).toBe('{"jsonrpc":"2.0","id":\n');

    await connection.close();
    expect(await connection.closed).toMatchObject({ initiator: 'local' });
    expect(await connection.stdio.exited).toEqual({ code: 0, signal: null });
  });
});

describe('stdio client with misbehaving children', () => {
  it('records lines that are not JSON as faults, queues the rest, and observes the exit', async () => {
    const connection = await spawn(
      nodeScript(
        `process.stdout.write('not json\\n' + JSON.stringify({jsonrpc:'2.0',method:'x'}) + '\\n\\n');` +
          `process.stdout.write(Buffer.from([0xff, 0x0a]));` +
          `process.stderr.write('err1\\r\\nerr2\\n');` +
          `process.stdout.write('{"last":true}');`,
      ),
    );
    expect(await connection.closed).toMatchObject({ initiator: 'remote', code: 0 });
    expect(connection.pending().map((received) => received.message)).toEqual([{ jsonrpc: '2.0', method: 'x' }, { last: true }]);
    expect(connection.faults().map((fault) => [fault.code, fault.jsonRpcCode])).toEqual([
      ['INVALID_JSON', -32700],
      ['INVALID_JSON', -32700],
      ['INVALID_UTF8', -32700],
    ]);
    expect(connection.stdio.stderrLines()).toEqual(['err1', 'err2']);
    expect(await connection.stdio.exited).toEqual({ code: 0, signal: null });
    await connection.next();
    await connection.next();
    await expect(connection.next()).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(connection.send({ jsonrpc: '2.0', method: 'late' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('reports the exit code of a child that fails', async () => {
    const connection = await spawn(nodeScript('process.exit(3)'));
    expect(await connection.closed).toMatchObject({ initiator: 'remote', code: 3 });
  });

  it('escalates to SIGTERM and SIGKILL for a child that ignores stdin closing and SIGTERM', async () => {
    const connection = await spawn(
      nodeScript(`process.on('SIGTERM', () => {}); setInterval(() => {}, 1000); console.log(JSON.stringify({ready: true}));`),
      { closeGraceMs: 300 },
    );
    await connection.next(undefined, WAIT);
    await connection.close('test over');
    expect(await connection.stdio.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const notes = connection.transcript.entries().map((entry) => entry.note ?? '');
    expect(notes.some((note) => note.includes('SIGTERM'))).toBe(true);
    expect(notes.some((note) => note.includes('SIGKILL'))).toBe(true);
    expect(await connection.closed).toMatchObject({ initiator: 'local', reason: 'test over' });
  });

  it('leaves no grandchild behind after close', async () => {
    const connection = await spawn(
      nodeScript(
        `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore'});` +
          `console.log(JSON.stringify({grandchild: c.pid})); setInterval(() => {}, 1000);`,
      ),
      { closeGraceMs: 300 },
    );
    const { grandchild } = (await connection.next(undefined, WAIT)).message as { grandchild: number };
    expect(isAlive(grandchild)).toBe(true);
    await connection.close();
    await expect.poll(() => isAlive(grandchild), { timeout: 20_000 }).toBe(false);
  });

  it('leaves no grandchild behind that left the process group and holds stdout open, and closes promptly', async () => {
    // detached: the grandchild gets a process group (and session) of its own, out of reach of the group kill.
    const connection = await spawn(
      nodeScript(
        `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: ['ignore', 'inherit', 'ignore'], detached: true});` +
          `c.unref(); console.log(JSON.stringify({grandchild: c.pid})); process.stdin.on('end', () => process.exit(0)); process.stdin.resume();`,
      ),
      // A close grace far above the test's limit: only the marker kill can end the grandchild in time.
      { closeGraceMs: 120_000 },
    );
    const { grandchild } = (await connection.next(undefined, WAIT)).message as { grandchild: number };
    expect(isAlive(grandchild)).toBe(true);
    await connection.close();
    await expect.poll(() => isAlive(grandchild), { timeout: 20_000 }).toBe(false);
  });

  it('a server that exits on its own takes along what it started outside its group', async () => {
    const connection = await spawn(
      nodeScript(
        `const c = require('child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {stdio: 'ignore', detached: true});` +
          `c.unref(); console.log(JSON.stringify({grandchild: c.pid})); setTimeout(() => process.exit(0), 100);`,
      ),
    );
    const { grandchild } = (await connection.next(undefined, WAIT)).message as { grandchild: number };
    await connection.closed;
    expect(connection.transcript.entries().map((entry) => entry.note)).toContain('killed 1 process(es) it started outside its group');
    await expect.poll(() => isAlive(grandchild), { timeout: 20_000 }).toBe(false);
  });

  it('keeps the first and the latest stderr lines of a flood, each cut to 4096 characters', async () => {
    const connection = await spawn(
      nodeScript(`for (let i = 0; i < 5000; i++) process.stderr.write('line ' + i + (i === 0 ? 'x'.repeat(10000) : '') + '\\n');`),
    );
    await connection.closed;
    const lines = connection.stdio.stderrLines();
    expect(lines).toHaveLength(1000);
    expect(lines[0]).toBe(`line 0${'x'.repeat(4090)}… (5910 more characters)`);
    expect(lines[99]).toBe('line 99');
    expect(lines[100]).toBe('line 4100');
    expect(lines.at(-1)).toBe('line 4999');
  });

  it('echoes what writeLine and sendRaw write, with the environment it was given', async () => {
    const connection = await spawn(nodeScript(`console.log(JSON.stringify({env: process.env.FIXTURE_VALUE})); process.stdin.pipe(process.stdout);`), {
      env: { FIXTURE_VALUE: 'set' },
      closeGraceMs: WAIT.timeoutMs,
    });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ env: 'set' });
    await connection.stdio.writeLine('{"a":1}');
    await connection.sendRaw(new TextEncoder().encode('{"b":'));
    await connection.sendRaw(new TextEncoder().encode('2}\n'));
    expect((await connection.next(undefined, WAIT)).message).toEqual({ a: 1 });
    const second = await connection.next(undefined, WAIT);
    expect(second.message).toEqual({ b: 2 });
    expect(Buffer.from(second.body!).toString()).toBe('{"b":2}');
    await connection.close();
    // Closing stdin was enough: the child ended by itself.
    expect(await connection.stdio.exited).toEqual({ code: 0, signal: null });
  });

  it('runs a command line through the shell when asked', async () => {
    const connection = await spawn(`echo '{"jsonrpc":"2.0","method":"from-shell"}' && echo oops >&2`, { shell: true });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', method: 'from-shell' });
    await connection.closed;
    expect(connection.stdio.stderrLines()).toEqual(['oops']);
  });

  it('parses a command line into words without a shell', async () => {
    const connection = await spawn(`${JSON.stringify(process.execPath)} -e 'console.log(JSON.stringify(process.argv.slice(1)))' "two words" 'it''s'`);
    expect((await connection.next(undefined, WAIT)).message).toEqual(['two words', 'its']);
  });

  it('fails with CONNECT_FAILED for a command that does not exist', async () => {
    await expect(spawnStdio('/nonexistent/mcp-server --flag')).rejects.toBeInstanceOf(ConnectFailedError);
  });

  it('fails with INVALID_COMMAND_LINE for an unterminated quote', async () => {
    await expect(spawnStdio(`node 'oops`)).rejects.toMatchObject({ code: 'INVALID_COMMAND_LINE' });
  });
});
