import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ControlStreamReader,
  ControlStreamWriter,
  EncodingAlreadyNegotiatedError,
  EncodingMismatchError,
  EncodingState,
  FrameTooLargeError,
  UnknownEncodingError,
  WireError,
  cborCodec,
  encodeFrame,
  jsonCodec,
  losesSync,
  type DecodedFrame,
  type EncodingName,
} from '../../src/wire/index.js';
import { captureError, chunked, concat, jsonRpcMessage, utf8 } from './arbitraries.js';
import { propertyRuns } from '../support/property-runs.js';

const initializeRequest = (id: number | string, encodings: EncodingName[] = ['cbor', 'json']) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2024-11-05',
    capabilities: {},
    clientInfo: { name: 'test', version: '1.0' },
    transport: { type: 'mcp-flow', version: '0.1', encodings },
  },
});
const initializeResult = (id: number | string, encoding?: EncodingName) => ({
  jsonrpc: '2.0',
  id,
  result: {
    protocolVersion: '2024-11-05',
    capabilities: {},
    serverInfo: { name: 'mock', version: '1.0' },
    ...(encoding ? { transport: { type: 'mcp-flow', version: '0.1', encoding } } : {}),
  },
});

function frames(items: Array<DecodedFrame | WireError>): DecodedFrame[] {
  return items.map((item) => {
    if (item instanceof WireError) throw item;
    return item;
  });
}

describe('EncodingState', () => {
  it('is JSON until switched, switches once, and refuses a different second switch', () => {
    const state = new EncodingState();
    expect(state.current).toBe('json');
    expect(state.negotiated).toBe(false);
    state.switchTo('cbor');
    expect(state.current).toBe('cbor');
    expect(state.negotiated).toBe(true);
    state.switchTo('cbor');
    expect(() => state.switchTo('json')).toThrow(EncodingAlreadyNegotiatedError);
    expect(() => new EncodingState().switchTo('xml' as EncodingName)).toThrow(UnknownEncodingError);
  });
});

describe('client and server over one control stream', () => {
  it('negotiates CBOR: initialize and its result in JSON, everything after in CBOR', () => {
    const client = new EncodingState();
    const server = new EncodingState();
    const clientWriter = new ControlStreamWriter({ state: client });
    const clientReader = new ControlStreamReader({ state: client, role: 'client' });
    const serverWriter = new ControlStreamWriter({ state: server, role: 'server' });
    const serverReader = new ControlStreamReader({ state: server, role: 'server' });

    const request = clientWriter.encode(initializeRequest(7));
    expect(request[4]).toBe(0x7b); // '{': JSON
    expect(client.initializeRequestId).toBe(7);
    const [received] = frames(serverReader.push(request));
    expect(received).toMatchObject({ encoding: 'json', message: initializeRequest(7), frameLength: request.length - 4, frameOffset: 0 });
    expect(server.initializeRequestId).toBe(7);

    const result = serverWriter.encode(initializeResult(7, 'cbor'));
    expect(result[4]).toBe(0x7b);
    expect(server.current).toBe('cbor');
    const list = serverWriter.encode({ jsonrpc: '2.0', id: 8, result: { tools: [] } });
    expect(list[4]).toBe(0xa3); // CBOR map of 3

    // Both frames in one chunk: the reader switches exactly at the boundary.
    const decoded = frames(clientReader.push(concat([result, list])));
    expect(decoded.map((d) => d.encoding)).toEqual(['json', 'cbor']);
    expect(decoded[1]!.message).toEqual({ jsonrpc: '2.0', id: 8, result: { tools: [] } });
    expect(client.current).toBe('cbor');

    const ping = clientWriter.encode({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(cborCodec.decode(ping.subarray(4))).toEqual({ jsonrpc: '2.0', id: 9, method: 'ping' });
    expect(frames(serverReader.push(ping))[0]!.encoding).toBe('cbor');
  });

  it('stays JSON when the result names no encoding (the server default) or names json', () => {
    for (const encoding of [undefined, 'json'] as const) {
      const state = new EncodingState();
      new ControlStreamWriter({ state }).encode(initializeRequest(1, []));
      const reader = new ControlStreamReader({ state, role: 'client' });
      frames(reader.push(encodeFrame(jsonCodec.encode(initializeResult(1, encoding)))));
      expect(state).toMatchObject({ negotiated: true, current: 'json' });
    }
  });

  it('ignores a response to another id while the initialize request is known', () => {
    const state = new EncodingState();
    state.noteInitializeRequest('init');
    const reader = new ControlStreamReader({ state, role: 'client' });
    frames(reader.push(encodeFrame(jsonCodec.encode(initializeResult('other', 'cbor')))));
    expect(state.negotiated).toBe(false);
    frames(reader.push(encodeFrame(jsonCodec.encode(initializeResult('init', 'cbor')))));
    expect(state.current).toBe('cbor');
  });

  it('without a role the writer leaves the switch to the caller', () => {
    const state = new EncodingState();
    const writer = new ControlStreamWriter({ state });
    writer.encode(initializeResult(1, 'cbor'));
    expect(state.negotiated).toBe(false);
    expect(writer.encodeAs({ a: 1 }, 'cbor')[4]).toBe(0xa1);
  });
});

describe('seed 001 examples', () => {
  it('the section 2.1 initialize request frames as 227 body bytes (the seed\'s 218 and 78 do not match its own JSON)', () => {
    const body = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"test","version":"1.0"},"transport":{"type":"mcp-flow","version":"0.1","encodings":["cbor","json"]}}}';
    const frame = new ControlStreamWriter({ state: new EncodingState() }).encode(JSON.parse(body));
    expect(frame.subarray(0, 4)).toEqual(new Uint8Array([0, 0, 0, 0xe3]));
    expect(new TextDecoder().decode(frame.subarray(4))).toBe(body);
  });

  it('one byte at a time still yields each message once, in order', () => {
    const writer = new ControlStreamWriter({ state: new EncodingState() });
    const messages = Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'ping', params: { pad: 'x'.repeat(i * 50) } }));
    const stream = concat(messages.map((m) => writer.encode(m)));
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server' });
    const out: unknown[] = [];
    for (let i = 0; i < stream.length; i++) out.push(...frames(reader.push(stream.subarray(i, i + 1))).map((d) => d.message));
    reader.end();
    expect(out).toEqual(messages);
    expect(reader.bufferedBytes).toBe(0);
  });
});

describe('ENCODING_MISMATCH', () => {
  it('a CBOR body before the initialize result (JSON in force)', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server' });
    const [item] = reader.push(encodeFrame(cborCodec.encode(initializeRequest(1))));
    expect(item).toBeInstanceOf(EncodingMismatchError);
    expect(item).toMatchObject({ code: 'ENCODING_MISMATCH', expected: 'json', actual: 'cbor', jsonRpcCode: -32003, requirement: 'WT-ENC-5', offset: 0 });
  });

  it('a JSON body after CBOR was negotiated, with later good frames still decoded', () => {
    const state = new EncodingState();
    state.switchTo('cbor');
    const reader = new ControlStreamReader({ state, role: 'server' });
    const bad = encodeFrame(utf8('{"jsonrpc":"2.0","id":2,"method":"ping"}'));
    const good = encodeFrame(cborCodec.encode({ jsonrpc: '2.0', id: 3, method: 'ping' }));
    const items = reader.push(concat([bad, good]));
    expect(items[0]).toMatchObject({ code: 'ENCODING_MISMATCH', expected: 'cbor', actual: 'json', offset: 0 });
    expect((items[0] as Error).message).toContain('cbor was negotiated');
    expect(items[1]).toMatchObject({ encoding: 'cbor', message: { id: 3 }, frameOffset: bad.length });
  });

  it('a non-message value that decodes in neither form is passed on as decoded', () => {
    const state = new EncodingState();
    state.switchTo('cbor');
    const [item] = new ControlStreamReader({ state, role: 'client' }).push(encodeFrame(cborCodec.encode('just a string')));
    expect(item).toMatchObject({ message: 'just a string', encoding: 'cbor' });
  });

  it('a body that decodes in neither encoding keeps its own error', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server' });
    const [item] = reader.push(encodeFrame(utf8('{"unterminated')));
    expect(item).toMatchObject({ code: 'INVALID_JSON' });
  });
});

describe('sync loss', () => {
  it('throws FRAME_TOO_LARGE when it starts a chunk, and every later call throws it too', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server', maxMessageSize: 64 });
    const error = captureError(() => reader.push(new Uint8Array([0, 0, 1, 0])));
    expect(error).toBeInstanceOf(FrameTooLargeError);
    expect(losesSync(error as WireError)).toBe(true);
    expect(() => reader.push(new Uint8Array([1]))).toThrow(error as Error);
    expect(() => reader.end()).toThrow(error as Error);
  });

  it('returns good frames that preceded it in the same chunk, the error last', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server', maxMessageSize: 64 });
    const good = encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', method: 'n' }));
    const items = reader.push(concat([good, new Uint8Array([0, 0, 1, 0])]));
    expect(items).toHaveLength(2);
    expect(items[0]).toMatchObject({ message: { method: 'n' } });
    expect(items[1]).toMatchObject({ code: 'FRAME_TOO_LARGE', offset: good.length });
    expect(() => reader.push(good)).toThrow(items[1] as Error);
  });

  it('an empty frame is reported in place and the frames after it are read (the stream is in sync)', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server', maxMessageSize: 64 });
    const good = (id: number) => encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id, method: 'ping' }));
    const items = reader.push(concat([good(1), new Uint8Array([0, 0, 0, 0]), good(2)]));
    expect(items.map((i) => (i instanceof WireError ? i.code : (i.message as { id: number }).id))).toEqual([1, 'FRAME_EMPTY', 2]);
    expect(losesSync(items[1] as WireError)).toBe(false);
    expect(reader.failure).toBeUndefined();
  });
});

describe("afterLengthError: 'skip' (WT-FRAME-7, the other accepted reading)", () => {
  it('property: an oversized frame between good ones is reported in place and skipped without buffering its body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 65, max: 400 }), fc.array(fc.nat(), { maxLength: 10 }), (oversize, cuts) => {
        const good = (id: number) => encodeFrame(jsonCodec.encode({ jsonrpc: '2.0', id, method: 'ping' }));
        const bad = concat([new Uint8Array([0, 0, oversize >> 8, oversize & 0xff]), new Uint8Array(oversize).fill(0x7b)]);
        const stream = concat([good(1), bad, new Uint8Array([0, 0, 0, 0]), good(2)]);
        const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server', maxMessageSize: 64, afterLengthError: 'skip' });
        const items: Array<DecodedFrame | WireError> = [];
        for (const chunk of chunked(stream, cuts)) {
          items.push(...reader.push(chunk));
          expect(reader.bufferedBytes).toBeLessThanOrEqual(4 + 64);
        }
        reader.end();
        expect(items.map((i) => (i instanceof WireError ? i.code : (i.message as { id: number }).id))).toEqual([1, 'FRAME_TOO_LARGE', 'FRAME_EMPTY', 2]);
        expect(items[1]).toMatchObject({ offset: good(1).length, declaredLength: oversize });
        expect(items[3]).toMatchObject({ frameOffset: good(1).length + bad.length + 4 });
        expect(reader.failure).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });

  it('input that ends inside a skipped body is FRAME_TRUNCATED_BODY', () => {
    const reader = new ControlStreamReader({ state: new EncodingState(), role: 'server', maxMessageSize: 4, afterLengthError: 'skip' });
    expect(reader.push(new Uint8Array([0, 0, 0, 10, 1, 2, 3]))).toMatchObject([{ code: 'FRAME_TOO_LARGE' }]);
    expect(captureError(() => reader.end())).toMatchObject({ code: 'FRAME_TRUNCATED_BODY', declaredLength: 10, receivedBodyBytes: 3, offset: 0 });
  });
});

describe('properties', () => {
  it('any chunking of the initialize exchange plus later messages decodes the same, switching at the result', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<EncodingName>('json', 'cbor'),
        fc.boolean(),
        fc.array(jsonRpcMessage, { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        (encoding, clientKnowsId, later, cuts) => {
          const server = new EncodingState();
          server.noteInitializeRequest(1);
          const writer = new ControlStreamWriter({ state: server, role: 'server' });
          const sent = [initializeResult(1, encoding), ...later];
          const stream = concat(sent.map((m) => writer.encode(m)));

          const client = new EncodingState();
          if (clientKnowsId) client.noteInitializeRequest(1);
          const reader = new ControlStreamReader({ state: client, role: 'client' });
          const out = chunked(stream, cuts).flatMap((chunk) => frames(reader.push(chunk)));
          reader.end();
          expect(out.map((d) => d.message)).toEqual(sent);
          expect(out.map((d) => d.encoding)).toEqual(sent.map((_, i) => (i === 0 ? 'json' : encoding)));
          expect(client.current).toBe(encoding);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('arbitrary bytes through a reader only ever raise WireErrors', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.constantFrom<'client' | 'server'>('client', 'server'),
        fc.constantFrom<EncodingName | undefined>(undefined, 'json', 'cbor'),
        (bytes, cuts, role, negotiated) => {
          const state = new EncodingState();
          if (negotiated) state.switchTo(negotiated);
          const reader = new ControlStreamReader({ state, role, maxMessageSize: 128 });
          try {
            for (const chunk of chunked(bytes, cuts)) {
              for (const item of reader.push(chunk)) {
                if (item instanceof Error) expect(item).toBeInstanceOf(WireError);
              }
            }
            reader.end();
          } catch (error) {
            expect(error).toBeInstanceOf(WireError);
          }
        },
      ),
      { numRuns: propertyRuns(300) },
    );
  });
});
