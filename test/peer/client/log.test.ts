// The frame log: one readable line per transcript entry, control messages decoded (CBOR shown as
// JSON) with their encoding and what they are.
import { describe, expect, it } from 'vitest';
import { describeEntry, FrameLogTranscript } from '../../../src/peer/client/index.js';
import { cborCodec, encodeFrame, jsonCodec } from '../../../src/wire/index.js';

describe('FrameLogTranscript', () => {
  it('writes a line per entry: direction, channel, encoding, what the message is, its JSON', () => {
    const lines: string[] = [];
    const transcript = new FrameLogTranscript((line) => void lines.push(line));
    const request = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hé' } } };
    transcript.record({ direction: 'sent', channel: { kind: 'control' }, bytes: encodeFrame(cborCodec.encode(request)), decoded: request });
    const answer = { jsonrpc: '2.0', id: 3, result: { content: [] } };
    transcript.record({ direction: 'received', channel: { kind: 'control' }, bytes: encodeFrame(jsonCodec.encode(answer)), decoded: answer, note: 'json' });
    transcript.record({ direction: 'received', channel: { kind: 'stream', streamId: 3, header: { requestId: 3, streamTag: 1 } }, byteLength: 4096, note: 'payload, ended (FIN)' });
    transcript.event('closing');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} -> control \[cbor\] request tools\/call id=3 \{"jsonrpc":"2\.0","id":3,"method":"tools\/call","params":\{"name":"echo","arguments":\{"text":"hé"\}\}\}$/);
    expect(lines[1]).toContain('<- control [json] response id=3 {"jsonrpc":"2.0","id":3,"result":{"content":[]}}');
    expect(lines[2]).toContain('<- stream 3 (request 3, tag 1) 4096 bytes (payload, ended (FIN))');
    expect(lines[3]).toContain('session (closing)');
  });

  it('shows undecodable bytes as hex with the error', () => {
    const line = describeEntry({ seq: 0, at: 0, direction: 'received', channel: { kind: 'control' }, byteLength: 5, hex: '000000011c', error: { code: 'INVALID_CBOR', message: 'bad' } });
    expect(line).toBe('00:00:00.000 <- control [cbor] 5 bytes 000000011c error INVALID_CBOR: bad');
  });
});
