// Execution streams on the client side: correlated by (request id, stream tag) whatever the arrival
// order, read into the call's sink, and never delivered as complete when reset, named by
// $/streamError, or shorter than announced.
import { afterEach, describe, expect, it } from 'vitest';
import type { CallOutcome } from '../../../src/peer/client/index.js';
import { DEADLINE, isRequest, webTransportPeer, type Message, type ScriptedPeer } from './support.js';

let peer: ScriptedPeer | undefined;
afterEach(async () => {
  await peer?.close();
  peer = undefined;
});

async function ready(): Promise<ScriptedPeer> {
  peer = await webTransportPeer();
  const init = peer.client.initialize();
  await peer.answerInitialize();
  await init;
  return peer;
}

/** Starts a call whose stream payload goes to a sink; resolves with the outcome and what the sink got. */
function call(p: ScriptedPeer): Promise<{ outcome: CallOutcome; written: number }> {
  let written = 0;
  const sink = new WritableStream<Uint8Array>({ write: (chunk) => void (written += chunk.byteLength) });
  return p.client.callTool('export', {}, { download: () => sink }).then((outcome) => ({ outcome, written }));
}

async function callRequest(p: ScriptedPeer): Promise<Message> {
  return (await p.server.next(isRequest('tools/call'), DEADLINE)).message as Message;
}

describe('execution streams of a call', () => {
  it('reads a stream opened after the result was sent into the call sink (WT-EXEC-7)', async () => {
    const p = await ready();
    const pending = call(p);
    const request = await callRequest(p);
    await p.server.send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'ref/stream', streamTag: 2, mimeType: 'text/plain', size: 3000 }] } });
    const stream = await p.server.webtransport!.openExecutionStream({ requestId: request.id, streamTag: 2 });
    await stream.write(new Uint8Array(3000).fill(0x61));
    await stream.close();
    const { outcome, written } = await pending;
    expect(outcome.failures).toEqual([]);
    expect(outcome.ok).toBe(true);
    expect(outcome.streams).toEqual([expect.objectContaining({ requestId: request.id, streamTag: 2, bytes: 3000, expectedBytes: 3000, complete: true, mimeType: 'text/plain' })]);
    expect(written).toBe(3000);
  });

  it('fails the call when the stream is shorter than the result announced', async () => {
    const p = await ready();
    const pending = call(p);
    const request = await callRequest(p);
    const stream = await p.server.webtransport!.openExecutionStream({ requestId: request.id, streamTag: 1 });
    await stream.write(new Uint8Array(100));
    await stream.close();
    await p.server.send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'ref/stream', streamTag: 1, size: 200 }] } });
    const { outcome } = await pending;
    expect(outcome.ok).toBe(false);
    expect(outcome.failures.join()).toMatch(/carried 100 bytes, but 200 were announced/);
  });

  it('fails the call when the server reported the stream failed ($/streamError), even if it ended with FIN (WT-STREAMERR-3)', async () => {
    const p = await ready();
    const pending = call(p);
    const request = await callRequest(p);
    const stream = await p.server.webtransport!.openExecutionStream({ requestId: request.id, streamTag: 1 });
    await stream.write(new Uint8Array(10));
    await p.server.send({ jsonrpc: '2.0', method: '$/streamError', params: { requestId: request.id, streamTag: 1, error: 'disk gone' } });
    await stream.close();
    await p.server.send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } });
    const { outcome } = await pending;
    expect(outcome.ok).toBe(false);
    expect(outcome.streams[0]).toMatchObject({ complete: false, failure: expect.stringContaining('disk gone') });
  });

  it('fails the call when the stream is reset', async () => {
    const p = await ready();
    const pending = call(p);
    const request = await callRequest(p);
    const stream = await p.server.webtransport!.openExecutionStream({ requestId: request.id, streamTag: 1 });
    await stream.write(new Uint8Array(10));
    await stream.abort('source failed');
    await p.server.send({ jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'ref/stream', streamTag: 1 }] } });
    const { outcome } = await pending;
    expect(outcome.ok).toBe(false);
    expect(outcome.streams[0]?.complete).toBe(false);
  });
});
