// pipedMockServer: the stdio mock served in this process, a fresh server per connection, as
// `mock-server --transport stdio` is per process: its banner and its stop on stderr, exit 0 when
// stdin ends, the options it was given (readings, faults).
import { describe, expect, it } from 'vitest';
import { pipedMockServer } from '../../../../src/peer/server/index.js';
import type { Connection } from '../../../../src/transport/connection.js';

const WAIT = { timeoutMs: 30_000 };
const INITIALIZE = { jsonrpc: '2.0', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

async function answerTo(connection: Connection, message: Record<string, unknown>): Promise<Record<string, unknown>> {
  await connection.send(message);
  return (await connection.next((received) => (received.message as { id?: unknown }).id === message['id'], WAIT)).message as Record<string, unknown>;
}

describe('pipedMockServer', () => {
  it('serves a new mock server per connection, says so on stderr, and exits 0 when stdin ends', async () => {
    const launch = pipedMockServer();
    const first = await launch('mock-server --transport stdio', {});
    const second = await launch('mock-server --transport stdio', {});
    // Each is a server of its own: both accept initialize (a second one on one server is refused).
    for (const connection of [first, second]) {
      const answer = await answerTo(connection, { ...INITIALIZE, id: 1 });
      expect(answer['result']).toMatchObject({ protocolVersion: '2025-06-18', serverInfo: { name: 'mcp-flow-conformance-mock-server' } });
    }
    expect((await answerTo(first, { ...INITIALIZE, id: 2 }))['error']).toBeDefined();
    await Promise.all([first.close(), second.close()]);
    expect(await first.stdio.exited).toEqual({ code: 0, signal: null });
    expect(first.stdio.stderrLines()[0]).toBe('mock server listening on stdio: (stdio)');
    expect(first.stdio.stderrLines()).toContain('faults on: (none)');
    expect(first.stdio.stderrLines().at(-1)).toBe('mock server stopped (stdin ended)');
  });

  it('starts each server with the options given: readings and faults', async () => {
    const connection = await pipedMockServer({ readings: 'alternate', faults: ['parse-error-unanswered'] })('mock', {});
    await connection.stdio.writeLine('{not json');
    // The fault: nothing answers the line that does not parse (the correct mock answers -32700).
    const answer = await answerTo(connection, { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(answer['id']).toBe(7);
    expect(connection.pending()).toEqual([]);
    await connection.close();
    expect(connection.stdio.stderrLines()).toContain('faults on: parse-error-unanswered');
    expect(connection.stdio.stderrLines().some((line) => line.startsWith('readings: alternate'))).toBe(true);
  });

  it('refuses to connect when the server cannot start, naming why', async () => {
    await expect(pipedMockServer({ faults: ['no-such-fault'] })('mock', {})).rejects.toThrow(/cannot start "mock" in this process: .*no-such-fault/);
  });
});
