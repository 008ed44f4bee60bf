// serveStdio: the server side over a pair of streams, in-process and across a real process boundary
// (with the SDK client and with the raw stdio client).
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { serveStdio } from '../../../src/transport/stdio/server.js';
import { spawnStdio } from '../../../src/transport/stdio/client.js';
import { ConnectionClosedError } from '../../../src/transport/errors.js';
import type { ReceivedMessage } from '../../../src/transport/connection.js';

const FIXTURE = fileURLToPath(new URL('../../fixtures/http-stdio/serve-stdio-server.ts', import.meta.url));
const WAIT = { timeoutMs: 30_000 };
const idIs = (id: unknown) => (received: ReceivedMessage) => (received.message as { id?: unknown }).id === id;
const open: { close(): Promise<void> }[] = [];

afterAll(async () => {
  await Promise.allSettled(open.map((item) => item.close()));
});

describe('serveStdio in-process', () => {
  it('reads newline-delimited messages, writes one line per message and faults on junk', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: Buffer[] = [];
    stdout.on('data', (chunk: Buffer) => written.push(chunk));
    const connection = serveStdio({ stdin, stdout });
    open.push(connection);
    stdin.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n[not json\n');
    const ping = await connection.next(undefined, WAIT);
    expect(ping.message).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(ping.channel).toEqual({ kind: 'stdio', fd: 'stdin' });
    await connection.send({ jsonrpc: '2.0', id: 1, result: {} });
    expect(Buffer.concat(written).toString()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n');
    await expect.poll(() => connection.faults().map((fault) => fault.code)).toEqual(['INVALID_JSON']);
    stdin.end();
    expect(await connection.closed).toMatchObject({ initiator: 'remote', reason: 'stdin ended' });
    await expect(connection.next()).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('close() stops reading and ends a stdout that is not the process\'s own', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const connection = serveStdio({ stdin, stdout });
    await connection.close('done');
    expect(stdout.writableEnded).toBe(true);
    expect(stdin.listenerCount('data')).toBe(0);
    expect(await connection.closed).toMatchObject({ initiator: 'local', reason: 'done' });
    await expect(connection.send({ jsonrpc: '2.0', method: 'late' })).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it('reserves stdout: console.log goes to stderr while open and comes back after close', async () => {
    const originalLog = console.log;
    const connection = serveStdio({ stdin: new PassThrough(), stdout: new PassThrough(), reserveStdout: true });
    expect(console.log).not.toBe(originalLog);
    await connection.close();
    expect(console.log).toBe(originalLog);
  });
});

describe('serveStdio across a process boundary', () => {
  const command = [process.execPath, '--import', 'tsx', FIXTURE];

  it('serves the SDK client', async () => {
    const client = new Client({ name: 'sdk-client', version: '1.0.0' });
    open.push(client);
    await client.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), stderr: 'pipe' }));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['echo', 'add']);
    expect((await client.callTool({ name: 'echo', arguments: { text: 'served' } })).content).toEqual([{ type: 'text', text: 'served' }]);
  });

  it('keeps console.log off stdout, and exits when its stdin closes', async () => {
    // A generous close grace: the child must exit by itself once stdin closes, however loaded the machine.
    const connection = await spawnStdio(command, { closeGraceMs: WAIT.timeoutMs });
    open.push(connection);
    await connection.send({ jsonrpc: '2.0', id: 1, method: 'test/log' });
    expect((await connection.next(idIs(1), WAIT)).message).toEqual({ jsonrpc: '2.0', id: 1, result: { logged: true } });
    await expect.poll(() => connection.stdio.stderrLines(), { timeout: 20_000 }).toContain('console.log output that must not reach stdout');
    expect(connection.faults()).toEqual([]);
    await connection.close();
    expect(await connection.stdio.exited).toEqual({ code: 0, signal: null });
  });
});
