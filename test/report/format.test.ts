import { describe, expect, it } from 'vitest';
import { describeEntry, omittedMessage } from '../../src/report/format.js';
import { Transcript } from '../../src/transport/transcript.js';

describe('transcript entries in reports', () => {
  it('an entry over the message limit says what it was, how large and its SHA-256, then its first bytes', () => {
    const message = { jsonrpc: '2.0', id: 3, result: { large: 'x'.repeat(200) } };
    const bytes = new TextEncoder().encode(JSON.stringify(message));
    const entry = new Transcript({ maxMessageBytes: 100, maxHexBytes: 4 }).record({ direction: 'received', channel: { kind: 'control' }, bytes, decoded: message });
    expect(omittedMessage(entry)).toBe(`response id 3 of ${bytes.byteLength} bytes (over the message limit, not kept whole: sha256 ${entry.sha256})`);
    expect(describeEntry(entry, 200)).toBe(`${omittedMessage(entry)} hex 7b 22 6a 73 … (${bytes.byteLength} bytes)`);
  });

  it('an entry kept whole shows its message', () => {
    const entry = new Transcript().record({ direction: 'received', channel: { kind: 'control' }, bytes: new TextEncoder().encode('{"id":1}'), decoded: { id: 1 } });
    expect(omittedMessage(entry)).toBeUndefined();
    expect(describeEntry(entry, 200)).toBe('{"id":1}');
  });
});
