// startMockServer options: bad values are typed errors naming the option; limits and encodings
// reach the wire; the FastWorkflow store; the message log; stdio on given streams.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MockServerOptionError, WizardFileError, describeMessage, startMockServer, type RunningMockServer } from '../../../../src/peer/server/index.js';
import { shippedWizardsDir } from '../../../../src/peer/server/flow/index.js';
import {
  SessionRefusedError,
  connectWebTransport,
  generateSelfSignedCertificate,
  initializeSession,
} from '../../../../src/transport/webtransport/index.js';
import { openRaw, type Message } from './support.js';

const running: RunningMockServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});
const scratch = mkdtempSync(join(tmpdir(), 'start-options-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function start(...args: Parameters<typeof startMockServer>): Promise<RunningMockServer> {
  const server = await startMockServer(...args);
  running.push(server);
  return server;
}

describe('bad options', () => {
  it.each([
    [{ transport: 'tcp' as never }, 'transport'],
    [{ transport: 'http' as const, port: 70_000 }, 'port'],
    [{ transport: 'http' as const, port: 1.5 }, 'port'],
    [{ transport: 'wt' as const, cert: '/x.pem' }, 'key'],
    [{ transport: 'wt' as const, encodings: ['cbor', 'xml'] }, 'encoding-preference'],
    [{ transport: 'wt' as const, encodings: [] }, 'encoding-preference'],
    [{ transport: 'wt' as const, encodings: ['json', 'json'] }, 'encoding-preference'],
    [{ transport: 'wt' as const, limits: { maxMessageSize: 0 } }, 'max-message-size'],
    [{ transport: 'wt' as const, limits: { maxConcurrentStreams: -1 } }, 'max-concurrent-streams'],
    [{ transport: 'wt' as const, limits: { maxSessions: 2.5 } }, 'max-sessions'],
    [{ transport: 'http' as const, transcript: { maxMessageBytes: -1 } }, 'kept-message-bytes'],
    [{ transport: 'wt' as const, limits: { handshakeTimeoutMs: -1 } }, 'handshake-timeout'],
    [{ transport: 'http' as const, limits: { idleTimeoutMs: 0.5 } }, 'idle-timeout'],
  ])('%j is refused naming %s', async (options, option) => {
    const error = await startMockServer(options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MockServerOptionError);
    expect((error as MockServerOptionError).option).toBe(option);
    expect((error as Error).message.startsWith(`${option}: `)).toBe(true);
  });

  it('a wizard file that does not parse is a WizardFileError naming the file, and no temp store is left', async () => {
    const file = join(scratch, 'broken-wizard.json');
    writeFileSync(file, '{"name": ');
    const error = await startMockServer({ transport: 'http', wizards: [file] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WizardFileError);
    expect((error as Error).message).toContain('broken-wizard.json');
  });
});

describe('wizards', () => {
  it('serves an extra wizard file besides the shipped ones', async () => {
    const file = join(scratch, 'extra.json');
    const booking = JSON.parse((await import('node:fs')).readFileSync(join(shippedWizardsDir(), 'booking.json'), 'utf8')) as Message;
    writeFileSync(file, JSON.stringify({ ...booking, name: 'extra-booking' }));
    const server = await start({ transport: 'http', wizards: [file] });
    expect(server.wizards).toContain('extra-booking');
    const client = await openRaw(server);
    const tools = (await client.call('tools/list')).result.tools.map((tool: Message) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(['extra-booking', 'booking']));
    expect((await client.call('interaction.start', { toolName: 'extra-booking' })).result.sessionId).toBeTypeOf('string');
    await client.connection.close();
  });
});

describe('limits and encodings reach result.transport (wt)', () => {
  it('advertises maxMessageSize, maxConcurrentStreams, datagramsSupported and speaks only the encodings given', async () => {
    const server = await start({ transport: 'wt', encodings: ['json'], limits: { maxMessageSize: 65_536, maxConcurrentStreams: 3, datagramsSupported: false } });
    const connection = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    const { transport } = await initializeSession(connection, { encodings: ['cbor', 'json'], timeoutMs: 15_000 });
    expect(transport).toMatchObject({ encoding: 'json', maxMessageSize: 65_536, maxConcurrentStreams: 3, datagramsSupported: false });
    await connection.close();
  });

  it('negotiates CBOR by default when the client offers it first', async () => {
    const server = await start({ transport: 'wt' });
    const connection = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    const { transport } = await initializeSession(connection, { encodings: ['cbor', 'json'], timeoutMs: 15_000 });
    expect(transport?.encoding).toBe('cbor');
    await connection.close();
  });
});

describe('certificate and session limit (wt)', () => {
  it('serves the certificate from --cert/--key files and reports its hash', async () => {
    const tls = await generateSelfSignedCertificate();
    const cert = join(scratch, 'cert.pem');
    const key = join(scratch, 'key.pem');
    writeFileSync(cert, tls.certPem);
    writeFileSync(key, tls.keyPem);
    const server = await start({ transport: 'wt', cert, key });
    expect(server.certificateHash).toBe(tls.certificateHashHex);
    const connection = await connectWebTransport(server.url, { certificateHash: tls.certificateHashHex });
    expect((await initializeSession(connection, { timeoutMs: 15_000 })).result.serverInfo).toBeDefined();
    await connection.close();
  });

  it('refuses sessions over maxSessions with 429', async () => {
    const server = await start({ transport: 'wt', limits: { maxSessions: 1 } });
    const first = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await initializeSession(first, { timeoutMs: 15_000 });
    const refused = await connectWebTransport(server.url, { certificateHash: server.certificateHash! }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionRefusedError);
    expect((refused as SessionRefusedError).status).toBe(429);
    await first.close();
  });

  it('closes a WebTransport session that never sends initialize after handshakeTimeoutMs, freeing its slot', async () => {
    const server = await start({ transport: 'wt', limits: { maxSessions: 1, handshakeTimeoutMs: 200 } });
    const idle = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    await idle.closed;
    const next = await connectWebTransport(server.url, { certificateHash: server.certificateHash! });
    expect((await initializeSession(next, { timeoutMs: 15_000 })).result.serverInfo).toBeDefined();
    await next.close();
  });
});

describe('Streamable HTTP hygiene: every POST answered, a session cap, idle expiry', () => {
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'options-test', version: '1' } } };
  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  it('answers a request whose id no answer could name (a fraction, past 2^53) on its own POST: -32600, id null (the POST used to hang)', async () => {
    const server = await start({ transport: 'http', fastworkflow: false });
    const opened = await post(server.url, initialize);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.text();
    for (const id of ['0.5', '1e308']) {
      const answer = await fetch(server.url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'Mcp-Session-Id': sessionId },
        body: `{"jsonrpc":"2.0","id":${id},"method":"ping"}`,
        signal: AbortSignal.timeout(15_000),
      });
      expect(answer.status, id).toBe(400);
      expect(await answer.json(), id).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
  });

  it('refuses an initialize beyond maxSessions with 429, and ends a session idle for idleTimeoutMs (its id then gets 404)', async () => {
    const server = await start({ transport: 'http', fastworkflow: false, limits: { maxSessions: 1, idleTimeoutMs: 300 } });
    const first = await post(server.url, initialize);
    expect(first.status).toBe(200);
    const sessionId = first.headers.get('mcp-session-id')!;
    await first.text();
    const refused = await post(server.url, initialize);
    expect(refused.status).toBe(429);
    await refused.text();
    // Once the first session expired, its id is unknown and the slot is free.
    let later: Response;
    for (;;) {
      later = await post(server.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, { 'Mcp-Session-Id': sessionId });
      await later.text();
      if (later.status === 404) break;
      // Each request is activity: wait out a whole idle period before the next try (liveness only).
      await new Promise((resolve) => setTimeout(resolve, 600));
    }
    const again = await post(server.url, initialize);
    expect(again.status).toBe(200);
    await again.text();
  });
});

describe('FastWorkflow store', () => {
  it('is on by default for http, in a temporary directory removed by close()', async () => {
    const server = await start({ transport: 'http' });
    expect(server.storeDir).toBeDefined();
    expect(existsSync(server.storeDir!)).toBe(true);
    await server.close();
    expect(existsSync(server.storeDir!)).toBe(false);
  });

  it('keeps a store directory it was given', async () => {
    const dir = join(scratch, 'store');
    const server = await start({ transport: 'http', storeDir: dir });
    const client = await openRaw(server);
    expect((await client.call('tools/call', { name: 'initialize', arguments: {} })).error).toBeUndefined();
    await client.connection.close();
    await server.close();
    expect(server.storeDir).toBe(dir);
    expect(existsSync(dir)).toBe(true);
  });

  it('with FastWorkflow on, prompts are its own and the core keeps its tools', async () => {
    const withFw = await openRaw(await start({ transport: 'http' }));
    expect((await withFw.call('prompts/list')).result.prompts.map((p: Message) => p.name)).toContain('format-command');
    expect((await withFw.call('tools/call', { name: 'echo', arguments: { text: 'x' } })).result.isError ?? false).toBe(false);
    await withFw.connection.close();
    const without = await openRaw(await start({ transport: 'http', fastworkflow: false }));
    expect((await without.call('prompts/list')).result.prompts.map((p: Message) => p.name)).toContain('greeting');
    expect((await without.call('resources/list')).result.resources.length).toBeGreaterThan(0);
    await without.connection.close();
  });

  it('is off by default elsewhere and can be switched off for http', async () => {
    expect((await start({ transport: 'wt' })).storeDir).toBeUndefined();
    const plain = await start({ transport: 'http', fastworkflow: false });
    expect(plain.storeDir).toBeUndefined();
    expect(plain.tools).not.toContain('invoke_agent');
  });
});

describe('message log', () => {
  it('logs each message with direction, connection, method/id and the body as JSON (CBOR decoded)', async () => {
    const lines: string[] = [];
    const server = await start({ transport: 'wt', log: (line) => lines.push(line) });
    const client = await openRaw(server);
    await client.call('tools/call', { name: 'echo', arguments: { text: 'logged' } });
    await client.connection.close();
    await server.close();
    expect(lines[0]).toBe('wt#1 opened');
    expect(lines).toContainEqual(expect.stringMatching(/^wt#1 <- request initialize id=0 \[json\] \{"jsonrpc":"2.0"/));
    expect(lines).toContainEqual(expect.stringMatching(/^wt#1 -> response id=0 \[json\] \{/));
    const call = lines.find((line) => line.includes('<- request tools/call'));
    expect(call).toMatch(/^wt#1 <- request tools\/call id=\d+ \[cbor\] /);
    expect(JSON.parse(call!.slice(call!.indexOf('{')))).toMatchObject({ method: 'tools/call', params: { name: 'echo', arguments: { text: 'logged' } } });
    expect(lines).toContainEqual(expect.stringMatching(/^wt#1 -> response id=\d+ \[cbor\] .*logged/));
    expect(lines.at(-1)).toBe('wt#1 closed');
  });

  it('describes notifications, errors and batches', () => {
    expect(describeMessage('in', 'c', { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe('c <- notification notifications/initialized {"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(describeMessage('out', 'c', { jsonrpc: '2.0', id: 'x', error: { code: -32601, message: 'm' } })).toMatch(/^c -> error id="x" /);
    expect(describeMessage('in', 'c', [{}, {}])).toMatch(/^c <- batch of 2 /);
    expect(describeMessage('in', 'c', { id: 10n, big: 2n ** 70n, method: 'm' })).toContain('"1180591620717411303424n"');
  });
});

describe('stdio on given streams', () => {
  it('serves one session and is done when stdin ends', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const server = await start({ transport: 'stdio', stdio: { stdin, stdout } });
    expect(server.url).toBe('stdio:');
    const lines: Message[] = [];
    let buffer = '';
    const answered = new Promise<void>((resolve) => {
      stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString('utf8');
        for (let at = buffer.indexOf('\n'); at >= 0; at = buffer.indexOf('\n')) {
          lines.push(JSON.parse(buffer.slice(0, at)) as Message);
          buffer = buffer.slice(at + 1);
          if (lines.some((m) => m.id === 2)) resolve();
        }
      });
    });
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }) + '\n');
    stdin.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
    stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\n');
    await answered;
    expect(lines.find((m) => m.id === 1)?.result.serverInfo).toBeDefined();
    expect(lines.find((m) => m.id === 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    stdin.end();
    await server.done;
  });
});
