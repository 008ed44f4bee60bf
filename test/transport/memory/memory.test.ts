import { describe, expect, it } from 'vitest';
import { createMemoryPair } from '../../../src/transport/memory/index.js';
import { ConnectionClosedError } from '../../../src/transport/errors.js';
import type { Connection } from '../../../src/transport/connection.js';

const LIVENESS = { timeoutMs: 10_000 };

describe('in-memory connection pair', () => {
  it('carries messages both ways, in order, as newline-delimited JSON', async () => {
    const { client, server } = createMemoryPair();
    await client.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await client.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    expect((await server.next(undefined, LIVENESS)).message).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect((await server.next(undefined, LIVENESS)).message).toMatchObject({ id: 2 });
    await server.send({ jsonrpc: '2.0', id: 1, result: {} });
    const received = await client.next(undefined, LIVENESS);
    expect(received).toMatchObject({ message: { id: 1, result: {} }, channel: { kind: 'stdio', fd: 'stdout' }, encoding: 'json' });
    expect(client.kind).toBe('stdio');
    expect((client as Connection).stdio).toBeUndefined();
    await client.close();
  });

  it('records every byte on both transcripts', async () => {
    const { client, server } = createMemoryPair();
    await client.send({ jsonrpc: '2.0', method: 'x' });
    await server.next(undefined, LIVENESS);
    const sent = client.transcript.entries().filter((e) => e.direction === 'sent');
    const received = server.transcript.entries().filter((e) => e.direction === 'received');
    expect(sent).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect(sent[0]!.hex).toBe(received[0]!.hex);
    expect(Buffer.from(sent[0]!.hex!, 'hex').toString()).toBe('{"jsonrpc":"2.0","method":"x"}\n');
    await server.close();
  });

  it('reports undecodable lines as faults and reassembles lines split across writes', async () => {
    const { client, server } = createMemoryPair();
    await client.sendRaw(new TextEncoder().encode('not json\n{"jsonrpc":'));
    await client.sendRaw(new TextEncoder().encode('"2.0","method":"late"}\n'));
    expect((await server.next(undefined, LIVENESS)).message).toEqual({ jsonrpc: '2.0', method: 'late' });
    expect(server.faults()).toEqual([expect.objectContaining({ code: 'INVALID_JSON', jsonRpcCode: -32700 })]);
    await client.close();
  });

  it('closing one end closes both; waits then reject with ConnectionClosedError', async () => {
    const { client, server } = createMemoryPair();
    const waiting = server.next(undefined, LIVENESS);
    await client.close('bye');
    await expect(waiting).rejects.toBeInstanceOf(ConnectionClosedError);
    expect(await client.closed).toMatchObject({ initiator: 'local', reason: 'bye' });
    expect(await server.closed).toMatchObject({ initiator: 'remote', reason: 'bye' });
    await expect(server.send({ jsonrpc: '2.0', method: 'x' })).rejects.toBeInstanceOf(ConnectionClosedError);
    await client.close();
  });
});
