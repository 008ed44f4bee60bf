// Piped stdio: a server in this process reached as a stdio server is (newline-delimited JSON both
// ways, stderr kept as lines, its exit ending the connection), and servers that stop by themselves,
// ignore their stdin ending, ignore being told to stop, or fail to start.
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { connectPiped, type PipedServe, type PipedServerEnds } from '../../../src/transport/stdio/piped.js';
import { ConnectFailedError } from '../../../src/transport/errors.js';

const WAIT = { timeoutMs: 30_000 };

/** A server that answers each request line with {id, result: {echo: method}}, writes "hello" to stderr, and exits 0 when its stdin ends. */
const echoServer = (onEnds?: (ends: PipedServerEnds) => void): PipedServe => async (ends) => {
  onEnds?.(ends);
  ends.stderr.write('hello\nsecond line');
  let exit!: (code: number) => void;
  const exited = new Promise<number>((resolve) => (exit = resolve));
  const lines = createInterface({ input: ends.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line) as { id?: unknown; method?: string };
    if (message.id !== undefined) ends.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { echo: message.method } })}\n`);
  });
  lines.on('close', () => exit(0));
  return { exited, stop: async () => exit(143) };
};

describe('a server on piped stdio', () => {
  it('carries messages both ways as lines, keeps its stderr lines, and has no pid', async () => {
    const connection = await connectPiped('echo', echoServer());
    expect(connection.kind).toBe('stdio');
    expect(connection.stdio.pid).toBeUndefined();
    await connection.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await connection.stdio.writeLine('{"jsonrpc":"2.0","id":2,"method":"raw"}');
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', id: 1, result: { echo: 'ping' } });
    expect((await connection.next(undefined, WAIT)).message).toEqual({ jsonrpc: '2.0', id: 2, result: { echo: 'raw' } });
    await connection.close();
    // The unterminated last stderr line counts once the server's pipes close.
    expect(connection.stdio.stderrLines()).toEqual(['hello', 'second line']);
    expect(await connection.stdio.exited).toEqual({ code: 0, signal: null });
    expect(await connection.closed).toEqual({ initiator: 'local', reason: 'closed by client', code: 0 });
    const sent = connection.transcript.entries().filter((entry) => entry.direction === 'sent');
    expect(sent.map((entry) => entry.channel)).toEqual([{ kind: 'stdio', fd: 'stdin' }, { kind: 'stdio', fd: 'stdin' }]);
  });

  it('ends when the server exits by itself, with its code, reading a last line without a newline', async () => {
    const connection = await connectPiped('quits', async (ends) => {
      ends.stdout.write('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}');
      return { exited: Promise.resolve(3), stop: async () => undefined };
    });
    expect(await connection.closed).toEqual({ initiator: 'remote', reason: 'server exited with code 3', code: 3 });
    expect(connection.pending().map((received) => (received.message as { method?: string }).method)).toEqual(['notifications/message']);
  });

  it('stops a server that goes on after its stdin ended', async () => {
    let stopped = false;
    const connection = await connectPiped(
      'stubborn',
      async () => {
        let exit!: (code: number) => void;
        const exited = new Promise<number>((resolve) => (exit = resolve));
        return { exited, stop: async () => ((stopped = true), exit(143)) };
      },
      { closeGraceMs: 50 },
    );
    await connection.close();
    expect(stopped).toBe(true);
    expect(await connection.stdio.exited).toEqual({ code: 143, signal: null });
    expect(connection.transcript.entries().some((entry) => entry.note === 'still running after stdin closed: stopped')).toBe(true);
  });

  it('lets go of a server that does not stop when told to', async () => {
    const connection = await connectPiped('deaf', async () => ({ exited: new Promise<number>(() => undefined), stop: async () => undefined }), { closeGraceMs: 50 });
    await connection.close();
    expect(await connection.stdio.exited).toEqual({ code: null, signal: null });
    expect(connection.isClosed).toBe(true);
  });

  it('refuses to connect to a server that fails to start, naming it', async () => {
    const failing = connectPiped('broken', async () => {
      throw new Error('no wizard named x');
    });
    await expect(failing).rejects.toThrow(ConnectFailedError);
    await expect(failing).rejects.toThrow('cannot start "broken" in this process: no wizard named x');
  });
});
