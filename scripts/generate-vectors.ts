// Computes the hex test vectors in vectors/*.json from the binding's rules (seed 001, docs/architecture.md)
// and the valid examples beside the schemas. Every byte is built here from first principles (big-endian
// integers, UTF-8 JSON, cbor-x with the project's CBOR options); src/wire is NOT used, so the tests in
// test/vectors/ check src/wire against an independent computation.
//
//   npx tsx scripts/generate-vectors.ts          writes vectors/*.json
//   npx tsx scripts/generate-vectors.ts --check  exits 1 when a committed file differs
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Encoder } from 'cbor-x';
import {
  VECTOR_FORMAT,
  VECTOR_VERSION,
  type Vector,
  type VectorError,
  type VectorFile,
  type VectorValue,
} from '../src/vectors/vector-file.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The reader limit the vectors assume when a vector does not state one. */
export const DEFAULT_MAX_MESSAGE_SIZE = 1_048_576;

// ---------------------------------------------------------------------------------------------
// Bytes

const utf8 = new TextEncoder();

function u32(n: number): Uint8Array {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) throw new RangeError(`not a 32-bit unsigned integer: ${n}`);
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n, false);
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

function bytesFromHex(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text.replace(/\s+/g, ''), 'hex'));
}

/** A control frame: 4-byte big-endian body length, then the body. */
function frame(body: Uint8Array): Uint8Array {
  return concat(u32(body.length), body);
}

function jsonBody(message: unknown): Uint8Array {
  return utf8.encode(JSON.stringify(message));
}

const cborEncoder = new Encoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false });

/**
 * Integers outside what a 32-bit CBOR head holds (-2^32..2^32-1) become BigInt so cbor-x writes a
 * CBOR integer (0x1b / 0x3b head), never a float64.
 */
function integersForCbor(value: unknown): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && (value > 0xffff_ffff || value < -0x1_0000_0000)) {
    return BigInt(value);
  }
  if (Array.isArray(value)) return value.map(integersForCbor);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, integersForCbor(v)]));
  }
  return value;
}

function cborBody(message: unknown): Uint8Array {
  return new Uint8Array(cborEncoder.encode(integersForCbor(message)));
}

function body(encoding: Encoding, message: unknown): Uint8Array {
  return encoding === 'json' ? jsonBody(message) : cborBody(message);
}

/** The vector form of a value: BigInt outside the double-exact range becomes {"$bigint": "..."}. */
function vectorValue(value: unknown): VectorValue {
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) && BigInt(Number(value)) === value
      ? Number(value)
      : { $bigint: value.toString(10) };
  }
  if (Array.isArray(value)) return value.map(vectorValue);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, vectorValue(v)]));
  }
  return value as VectorValue;
}

type Encoding = 'json' | 'cbor';
type Message = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Builders

interface ControlSpec {
  name: string;
  description: string;
  role: 'client' | 'server';
  /** Encoding in force at the first byte, and whether the initialize exchange is over. */
  encoding: Encoding;
  negotiated: boolean;
  frames: Array<{ encoding: Encoding; message: Message } | { encoding: Encoding; raw: Uint8Array; message: Message }>;
  maxMessageSize?: number;
  profile: string[];
}

function control(file: string, spec: ControlSpec): Vector {
  const bytes = concat(...spec.frames.map((f) => frame('raw' in f ? f.raw : body(f.encoding, f.message))));
  return {
    id: `${file}/${spec.name}`,
    description: spec.description,
    kind: 'control',
    hex: hex(bytes),
    encoding: spec.encoding,
    negotiated: spec.negotiated,
    role: spec.role,
    ...(spec.maxMessageSize === undefined ? {} : { maxMessageSize: spec.maxMessageSize }),
    decoded: spec.frames.map((f) => vectorValue(f.message)),
    frameEncodings: spec.frames.map((f) => f.encoding),
    profile: spec.profile,
  };
}

function invalid(
  name: string,
  description: string,
  kind: Vector['kind'],
  bytes: Uint8Array,
  error: VectorError,
  profile: string[],
  context: Partial<Pick<Vector, 'encoding' | 'negotiated' | 'role' | 'maxMessageSize'>> = {},
): Vector {
  return { id: `invalid/${name}`, description, kind, hex: hex(bytes), ...context, error, profile };
}

/** The wire error table of docs/architecture.md: code -> JSON-RPC code and requirement. */
const WIRE_ERRORS = {
  FRAME_TRUNCATED_LENGTH: [-32700, 'WT-FRAME-5'],
  FRAME_TRUNCATED_BODY: [-32700, 'WT-FRAME-5'],
  FRAME_TOO_LARGE: [-32600, 'WT-FRAME-3'],
  FRAME_EMPTY: [-32600, 'WT-FRAME-2'],
  INVALID_UTF8: [-32700, 'WT-FRAME-4'],
  INVALID_JSON: [-32700, 'WT-FRAME-4'],
  INVALID_CBOR: [-32700, 'WT-FRAME-4'],
  CBOR_TRAILING_BYTES: [-32700, 'WT-FRAME-4'],
  ENCODING_MISMATCH: [-32003, 'WT-ENC-5'],
  EXEC_HEADER_TRUNCATED: [-32600, 'WT-EXEC-1'],
  DATAGRAM_TOO_SHORT: [-32600, 'WT-DGRAM-1'],
  DATAGRAM_RESERVED_CHANNEL: [-32600, 'WT-DGRAM-2'],
  DATAGRAM_RESERVED_FLAGS: [-32600, 'WT-DGRAM-3'],
  DATAGRAM_UNKNOWN_CHANNEL: [-32600, 'WT-DGRAM-4'],
} as const;

type WireErrorCode = keyof typeof WIRE_ERRORS;

function wireError(code: WireErrorCode): { error: VectorError; requirement: string } {
  const [jsonRpcCode, requirement] = WIRE_ERRORS[code];
  return { error: { code, jsonRpcCode }, requirement };
}

// ---------------------------------------------------------------------------------------------
// control.json

/** Seed 001 §2.1, character for character. Its length is computed, never copied from the seed. */
export const SEED_001_INITIALIZE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"test","version":"1.0"},"transport":{"type":"mcp-flow","version":"0.1","encodings":["cbor","json"]}}}';

function initializeResult(encoding: Encoding): Message {
  return {
    jsonrpc: '2.0',
    id: 1,
    result: {
      protocolVersion: '2024-11-05',
      capabilities: { tools: {} },
      serverInfo: { name: 'mock-server', version: '1.0.0' },
      transport: { type: 'mcp-flow', version: '0.1', encoding, maxMessageSize: 16_777_216, maxConcurrentStreams: 100, datagramsSupported: true },
    },
  };
}

/** A body of exactly `size` bytes of JSON: a tools/call result whose text fills the rest. */
function toolResultOfSize(size: number): Message {
  const shell = (text: string): Message => ({
    jsonrpc: '2.0',
    id: 7,
    result: { content: [{ type: 'text', text }], isError: false },
  });
  const overhead = jsonBody(shell('')).length;
  const text = Array.from({ length: size - overhead }, (_, i) => String.fromCharCode(97 + (i % 26))).join('');
  const message = shell(text);
  if (jsonBody(message).length !== size) throw new RangeError(`could not build a ${size}-byte body`);
  return message;
}

function controlVectors(): Vector[] {
  const f = 'control';
  const seedInitialize = JSON.parse(SEED_001_INITIALIZE) as Message;
  const ping: Message = { jsonrpc: '2.0', id: 43, method: 'ping' };
  const pong: Message = { jsonrpc: '2.0', id: 43, result: {} };
  const shutdown: Message = { jsonrpc: '2.0', method: '$/shutdown' };
  const readFile: Message = {
    jsonrpc: '2.0',
    id: 42,
    method: 'tools/call',
    params: { name: 'read_file', arguments: { path: '/big.log' } },
  };
  const streamRef: Message = {
    jsonrpc: '2.0',
    id: 42,
    result: { content: [{ type: 'ref/stream', streamTag: 1, mimeType: 'text/plain' }] },
  };
  const cancel: Message = { jsonrpc: '2.0', method: '$/cancel', params: { requestId: 99, reason: 'User pressed Escape' } };
  const cancelled: Message = { jsonrpc: '2.0', id: 99, error: { code: -32000, message: 'Cancelled' } };
  const streamError: Message = {
    jsonrpc: '2.0',
    method: '$/streamError',
    params: { requestId: 42, streamTag: 1, error: 'Connection reset by peer' },
  };
  const unicode: Message = {
    jsonrpc: '2.0',
    id: 5,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'Grüße, 世界 ✓ 🎉' } },
  };
  // 2^53 + 1 is not a double: it is a BigInt so the bytes and the decoded value are exact.
  const numbers: Message = {
    jsonrpc: '2.0',
    id: 6,
    method: 'tools/call',
    params: {
      name: 'sum',
      arguments: {
        beyondDouble: 2n ** 53n + 1n,
        above32: 2 ** 32,
        maxU32: 0xffff_ffff,
        minHead32: -(2 ** 32),
        below: -(2 ** 40),
        small: [0, -1, 23, 24, -25, 255, 256],
        fraction: 0.25,
      },
    },
  };
  const large = toolResultOfSize(70_000);

  return [
    control(f, {
      name: 'seed-001-initialize',
      description:
        'Seed 001 §2.1 initialize request, byte for byte. The body is 227 bytes, so the prefix is 00 00 00 e3 and the frame 231 bytes (the seed says 218 / 222: erratum).',
      role: 'server',
      encoding: 'json',
      negotiated: false,
      frames: [{ encoding: 'json', raw: utf8.encode(SEED_001_INITIALIZE), message: seedInitialize }],
      profile: ['WT-FRAME-1', 'WT-ENC-1', 'WT-INIT-1'],
    }),
    control(f, {
      name: 'json-shutdown',
      description: 'A small JSON frame: the $/shutdown notification of seed 001 §7.',
      role: 'server',
      encoding: 'json',
      negotiated: true,
      frames: [{ encoding: 'json', message: shutdown }],
      profile: ['WT-FRAME-1'],
    }),
    control(f, {
      name: 'json-large-body',
      description: 'A 70000-byte JSON body: all four length bytes carry (00 01 11 70), reader limit exactly the body size.',
      role: 'client',
      encoding: 'json',
      negotiated: true,
      maxMessageSize: 70_000,
      frames: [{ encoding: 'json', message: large }],
      profile: ['WT-FRAME-1', 'WT-FRAME-3', 'WT-FRAME-6'],
    }),
    control(f, {
      name: 'json-unicode',
      description: 'A JSON body with 2-, 3- and 4-byte UTF-8 sequences: the length counts bytes, not characters.',
      role: 'server',
      encoding: 'json',
      negotiated: true,
      frames: [{ encoding: 'json', message: unicode }],
      profile: ['WT-FRAME-1', 'WT-FRAME-4'],
    }),
    control(f, {
      name: 'json-three-frames',
      description: 'Three JSON frames in one buffer: a tools/call request, a ping request, a $/cancel notification (seed 001 §5, §6).',
      role: 'server',
      encoding: 'json',
      negotiated: true,
      frames: [
        { encoding: 'json', message: readFile },
        { encoding: 'json', message: ping },
        { encoding: 'json', message: cancel },
      ],
      profile: ['WT-FRAME-1', 'WT-FRAME-6'],
    }),
    control(f, {
      name: 'switch-json-to-cbor',
      description:
        'What a client reads: the JSON initialize result choosing "cbor", then in the same buffer two CBOR frames (a ping request and a $/streamError). The switch happens at the message boundary.',
      role: 'client',
      encoding: 'json',
      negotiated: false,
      frames: [
        { encoding: 'json', message: initializeResult('cbor') },
        { encoding: 'cbor', message: { jsonrpc: '2.0', id: 1, method: 'ping' } },
        { encoding: 'cbor', message: streamError },
      ],
      profile: ['WT-FRAME-1', 'WT-FRAME-6', 'WT-ENC-2', 'WT-ENC-3', 'WT-ENC-10', 'WT-INIT-3'],
    }),
    control(f, {
      name: 'switch-json-stays-json',
      description: 'What a client reads: the JSON initialize result choosing "json", then a JSON frame in the same buffer.',
      role: 'client',
      encoding: 'json',
      negotiated: false,
      frames: [
        { encoding: 'json', message: initializeResult('json') },
        { encoding: 'json', message: pong },
      ],
      profile: ['WT-FRAME-1', 'WT-FRAME-6', 'WT-ENC-2', 'WT-ENC-3', 'WT-INIT-3'],
    }),
    control(f, {
      name: 'cbor-tools-call',
      description: 'The tools/call request of seed 001 §5 as a CBOR frame after CBOR was negotiated.',
      role: 'server',
      encoding: 'cbor',
      negotiated: true,
      frames: [{ encoding: 'cbor', message: readFile }],
      profile: ['WT-FRAME-1', 'WT-ENC-3', 'WT-ENC-10'],
    }),
    control(f, {
      name: 'cbor-three-frames',
      description: 'Three CBOR frames in one buffer: a stream reference result, a cancelled error, a ping result.',
      role: 'client',
      encoding: 'cbor',
      negotiated: true,
      frames: [
        { encoding: 'cbor', message: streamRef },
        { encoding: 'cbor', message: cancelled },
        { encoding: 'cbor', message: pong },
      ],
      profile: ['WT-FRAME-1', 'WT-FRAME-6', 'WT-ENC-3', 'WT-ENC-10'],
    }),
    control(f, {
      name: 'cbor-integers',
      description:
        'CBOR integers beyond a 32-bit head (2^32, -2^40, and 2^53+1 which only a big integer holds), the 32-bit head extremes 2^32-1 and -2^32, integers at the 1-, 2- and 3-byte head boundaries and a float64.',
      role: 'client',
      encoding: 'cbor',
      negotiated: true,
      frames: [{ encoding: 'cbor', message: numbers }],
      profile: ['WT-FRAME-1', 'WT-ENC-10'],
    }),
    control(f, {
      name: 'cbor-unicode',
      description: 'A CBOR body with non-ASCII text strings.',
      role: 'server',
      encoding: 'cbor',
      negotiated: true,
      frames: [{ encoding: 'cbor', message: unicode }],
      profile: ['WT-FRAME-1', 'WT-ENC-10'],
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// exec-header.json

function execVectors(): Vector[] {
  const text = utf8.encode('2026-11-22T10:00:00Z INFO started\n2026-11-22T10:00:01Z INFO done\n');
  const allBytes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const cases: Array<{ name: string; requestId: number; streamTag: number; payload: Uint8Array; description: string }> = [
    { name: 'seed-001-id-42-tag-1', requestId: 42, streamTag: 1, payload: text, description: 'Seed 001 §2.2: request 42, tag 1, then file data.' },
    { name: 'id-0-tag-0-empty', requestId: 0, streamTag: 0, payload: new Uint8Array(0), description: 'Request id 0, tag 0, header only (empty payload).' },
    { name: 'id-1-tag-2', requestId: 1, streamTag: 2, payload: utf8.encode('{"partial":'), description: 'Request id 1, tag 2; the payload is opaque (not a whole JSON value).' },
    { name: 'id-2pow31-tag-7', requestId: 2 ** 31, streamTag: 7, payload: allBytes, description: 'Request id 2^31 (high bit set: unsigned, not negative), every byte value as payload.' },
    { name: 'id-max-tag-max', requestId: 0xffff_ffff, streamTag: 0xffff_ffff, payload: Uint8Array.of(0), description: 'Request id and tag 2^32-1, one zero byte of payload.' },
    { name: 'id-256-tag-65536', requestId: 256, streamTag: 65_536, payload: Uint8Array.of(0xde, 0xad, 0xbe, 0xef), description: 'Request id 256 and tag 65536: the byte order is big-endian.' },
  ];
  return cases.map((c) => ({
    id: `exec-header/${c.name}`,
    description: c.description,
    kind: 'exec',
    hex: hex(concat(u32(c.requestId), u32(c.streamTag), c.payload)),
    decoded: { requestId: c.requestId, streamTag: c.streamTag, payloadHex: hex(c.payload) },
    profile: ['WT-EXEC-1', 'WT-EXEC-6', 'WT-ID-1'],
  }));
}

// ---------------------------------------------------------------------------------------------
// datagram.json

const CHANNEL = { progress: 0x01, audio: 0x02, log: 0x03 } as const;

function datagramHeader(channel: number, flags: number, requestId: number): Uint8Array {
  return concat(Uint8Array.of(channel, flags), u32(requestId));
}

function datagramVectors(): Vector[] {
  const progress = { progress: 50, total: 100, message: 'Halfway there' };
  const progressFraction = { progress: 0.75 };
  const log = { level: 'info', logger: 'read_file', data: 'opened /big.log' };
  const logObject = { level: 'warning', data: { bytes: 10_737_418_240, note: 'größer als erwartet' } };
  const out: Vector[] = [];
  const structured = (name: string, channel: 'progress' | 'log', encoding: Encoding, requestId: number, payload: Message, description: string): void => {
    const payloadBytes = body(encoding, payload);
    out.push({
      id: `datagram/${name}`,
      description,
      kind: 'datagram',
      hex: hex(concat(datagramHeader(CHANNEL[channel], 0, requestId), payloadBytes)),
      encoding,
      decoded: { channel: CHANNEL[channel], flags: 0, requestId, payloadHex: hex(payloadBytes), payload: vectorValue(payload) },
      profile: ['WT-DGRAM-1', 'WT-DGRAM-6', 'WT-ID-1', ...(encoding === 'cbor' ? ['WT-ENC-10'] : [])],
    });
  };
  structured('seed-001-progress-json', 'progress', 'json', 42, progress, 'Seed 001 §2.3: progress for request 42, JSON payload.');
  structured('progress-cbor', 'progress', 'cbor', 42, progress, 'Progress for request 42, CBOR payload.');
  structured('progress-fraction-json', 'progress', 'json', 0xffff_ffff, progressFraction, 'Progress without total for request 2^32-1, JSON payload.');
  structured('progress-fraction-cbor', 'progress', 'cbor', 0xffff_ffff, progressFraction, 'Progress without total for request 2^32-1, CBOR payload (float64).');
  structured('log-json', 'log', 'json', 7, log, 'A log line for request 7, JSON payload.');
  structured('log-cbor', 'log', 'cbor', 7, log, 'A log line for request 7, CBOR payload.');
  structured('log-object-json', 'log', 'json', 2 ** 31, logObject, 'A log entry with structured data (an integer beyond 32 bits) for request 2^31, JSON payload.');
  structured('log-object-cbor', 'log', 'cbor', 2 ** 31, logObject, 'A log entry with structured data (an integer beyond 32 bits) for request 2^31, CBOR payload.');

  // Audio: raw bytes, here 8 samples of 16-bit big-endian PCM, never decoded.
  const pcm = new Uint8Array(16);
  const view = new DataView(pcm.buffer);
  for (let i = 0; i < 8; i += 1) view.setInt16(i * 2, Math.round(Math.sin((i / 8) * 2 * Math.PI) * 32_000), false);
  for (const [name, requestId, payload, description] of [
    ['audio-pcm', 42, pcm, 'Audio for request 42: 16 bytes of raw PCM, passed through untouched.'],
    ['audio-empty', 0, new Uint8Array(0), 'Audio for request 0 with an empty payload: just the 6-byte header.'],
    ['audio-json-looking', 3, utf8.encode('{"not":"decoded"}'), 'Audio whose bytes look like JSON: still raw bytes, not decoded.'],
  ] as const) {
    out.push({
      id: `datagram/${name}`,
      description,
      kind: 'datagram',
      hex: hex(concat(datagramHeader(CHANNEL.audio, 0, requestId), payload)),
      encoding: 'json',
      decoded: { channel: CHANNEL.audio, flags: 0, requestId, payloadHex: hex(payload) },
      profile: ['WT-DGRAM-1', 'WT-ID-1'],
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// invalid.json

function invalidVectors(): Vector[] {
  const out: Vector[] = [];
  const add = (
    name: string,
    description: string,
    kind: Vector['kind'],
    bytes: Uint8Array,
    code: WireErrorCode,
    context: Partial<Pick<Vector, 'encoding' | 'negotiated' | 'role' | 'maxMessageSize'>> = {},
  ): void => {
    const { error, requirement } = wireError(code);
    out.push(invalid(name, description, kind, bytes, error, [requirement], context));
  };
  const jsonServer = { encoding: 'json', negotiated: true, role: 'server' } as const;
  const cborServer = { encoding: 'cbor', negotiated: true, role: 'server' } as const;
  const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
  const pingJson = jsonBody(ping);

  add('frame-truncated-length-3', 'The stream ends after 3 of the 4 length bytes.', 'control', bytesFromHex('000000'), 'FRAME_TRUNCATED_LENGTH', jsonServer);
  add('frame-truncated-length-after-frame', 'A whole ping frame, then the stream ends after 1 byte of the next length.', 'control', concat(frame(pingJson), Uint8Array.of(0)), 'FRAME_TRUNCATED_LENGTH', jsonServer);
  add('frame-truncated-body', `The length says ${pingJson.length} bytes; the stream ends after 10.`, 'control', concat(u32(pingJson.length), pingJson.subarray(0, 10)), 'FRAME_TRUNCATED_BODY', jsonServer);
  add(
    'frame-too-large',
    'The length prefix declares 1048577 bytes against a 1048576-byte limit; only 4 body bytes follow, so a reader that waits for the body instead of rejecting the prefix fails with a truncation instead.',
    'control',
    concat(u32(DEFAULT_MAX_MESSAGE_SIZE + 1), pingJson.subarray(0, 4)),
    'FRAME_TOO_LARGE',
    { ...jsonServer, maxMessageSize: DEFAULT_MAX_MESSAGE_SIZE },
  );
  add('frame-too-large-by-one', `A whole ${pingJson.length}-byte ping body read with a ${pingJson.length - 1}-byte limit.`, 'control', frame(pingJson), 'FRAME_TOO_LARGE', {
    ...jsonServer,
    maxMessageSize: pingJson.length - 1,
  });
  add('frame-empty', 'A length prefix of 0: an empty body is no message.', 'control', bytesFromHex('00000000'), 'FRAME_EMPTY', jsonServer);
  add('invalid-utf8-byte', 'A JSON body with the byte 0xff inside a string.', 'control', frame(concat(utf8.encode('{"jsonrpc":"2.0","method":"'), Uint8Array.of(0xff), utf8.encode('"}'))), 'INVALID_UTF8', jsonServer);
  add('invalid-utf8-overlong', 'A JSON body with the overlong sequence c0 af (a disguised "/").', 'control', frame(concat(utf8.encode('{"jsonrpc":"2.0","method":"a'), Uint8Array.of(0xc0, 0xaf), utf8.encode('b"}'))), 'INVALID_UTF8', jsonServer);
  add('invalid-utf8-surrogate', 'A JSON body with an encoded UTF-16 surrogate (ed a0 80).', 'control', frame(concat(utf8.encode('{"jsonrpc":"2.0","method":"'), Uint8Array.of(0xed, 0xa0, 0x80), utf8.encode('"}'))), 'INVALID_UTF8', jsonServer);
  add('invalid-json-unterminated', 'A JSON body cut off inside an object.', 'control', frame(utf8.encode('{"jsonrpc":"2.0","id":3,')), 'INVALID_JSON', jsonServer);
  add('invalid-json-single-quotes', 'A JSON body written with single quotes.', 'control', frame(utf8.encode("{'jsonrpc':'2.0','method':'ping'}")), 'INVALID_JSON', jsonServer);
  add('invalid-json-bom', 'A JSON body that starts with a UTF-8 byte order mark (ef bb bf): JSON bodies carry none.', 'control', frame(concat(Uint8Array.of(0xef, 0xbb, 0xbf), pingJson)), 'INVALID_JSON', jsonServer);
  add('invalid-cbor-short-map', 'A CBOR map that declares 2 entries and carries 1.', 'control', frame(bytesFromHex('a2 61 61 01')), 'INVALID_CBOR', cborServer);
  add('invalid-cbor-reserved-info', 'A CBOR item with the reserved additional information 28 (0x1c).', 'control', frame(bytesFromHex('1c')), 'INVALID_CBOR', cborServer);
  add('cbor-trailing-bytes', 'A CBOR ping followed by one more byte (0x00) inside the same frame.', 'control', frame(concat(cborBody(ping), Uint8Array.of(0))), 'CBOR_TRAILING_BYTES', cborServer);
  add('encoding-mismatch-json-after-cbor', 'A JSON ping frame on a stream where CBOR was negotiated.', 'control', frame(pingJson), 'ENCODING_MISMATCH', cborServer);
  add('encoding-mismatch-cbor-after-json', 'A CBOR ping frame on a stream where "json" was negotiated.', 'control', frame(cborBody(ping)), 'ENCODING_MISMATCH', jsonServer);
  add(
    'encoding-mismatch-cbor-initialize',
    'The seed 001 initialize request encoded as CBOR: initialize must be JSON.',
    'control',
    frame(cborBody(JSON.parse(SEED_001_INITIALIZE))),
    'ENCODING_MISMATCH',
    { encoding: 'json', negotiated: false, role: 'server' },
  );
  add('exec-header-truncated-7', 'An execution stream that ends after 7 header bytes.', 'exec', bytesFromHex('0000002a000000'), 'EXEC_HEADER_TRUNCATED');
  add('exec-header-truncated-0', 'An execution stream that ends before any byte.', 'exec', new Uint8Array(0), 'EXEC_HEADER_TRUNCATED');
  add('datagram-too-short-5', 'A 5-byte datagram: one byte short of the header.', 'datagram', bytesFromHex('010000002a'), 'DATAGRAM_TOO_SHORT', { encoding: 'json' });
  add('datagram-too-short-0', 'An empty datagram.', 'datagram', new Uint8Array(0), 'DATAGRAM_TOO_SHORT', { encoding: 'json' });
  add('datagram-reserved-channel', 'A datagram on the reserved channel 0x00.', 'datagram', concat(datagramHeader(0x00, 0, 42), jsonBody({ progress: 1 })), 'DATAGRAM_RESERVED_CHANNEL', { encoding: 'json' });
  add('datagram-reserved-flags', 'A progress datagram with flags 0x01.', 'datagram', concat(datagramHeader(0x01, 0x01, 42), jsonBody({ progress: 1 })), 'DATAGRAM_RESERVED_FLAGS', { encoding: 'json' });
  add('datagram-reserved-flags-high', 'An audio datagram with flags 0x80.', 'datagram', concat(datagramHeader(0x02, 0x80, 42), Uint8Array.of(1, 2)), 'DATAGRAM_RESERVED_FLAGS', { encoding: 'json' });
  add('datagram-unknown-channel-4', 'A datagram on channel 0x04, the first unassigned one.', 'datagram', concat(datagramHeader(0x04, 0, 42), Uint8Array.of(1)), 'DATAGRAM_UNKNOWN_CHANNEL', { encoding: 'json' });
  add('datagram-unknown-channel-ff', 'A datagram on channel 0xff.', 'datagram', datagramHeader(0xff, 0, 42), 'DATAGRAM_UNKNOWN_CHANNEL', { encoding: 'json' });
  return out;
}

// ---------------------------------------------------------------------------------------------
// messages.json

const MESSAGE_KINDS = new Set(['request', 'result', 'notification', 'error']);

/** An input the generator reads (schemas/ and the examples beside them) is missing or malformed. */
export class VectorGeneratorInputError extends Error {
  readonly code = 'VECTOR_GENERATOR_INPUT';
  readonly file: string;
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super(`${file}: ${detail}`, options);
    this.name = 'VectorGeneratorInputError';
    this.file = file;
  }
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new VectorGeneratorInputError(path, `cannot read: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new VectorGeneratorInputError(path, `not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

/** Every `*.examples.json` below `dir`, in a stable (sorted) order. */
function listExampleFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (error) {
    throw new VectorGeneratorInputError(dir, `cannot list the folder: ${(error as Error).message}`, { cause: error });
  }
  let out: string[] = [];
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(listExampleFiles(path));
    else if (name.endsWith('.examples.json')) out.push(path);
  }
  return out;
}

interface ExamplesFile {
  valid?: Array<{ description?: unknown; instance?: unknown }>;
}

/** Which side reads a message: the one the schema's `x-mcp-flow.direction` sends to (a server for "both"). */
function readerOf(schemaFile: string): 'client' | 'server' {
  const schema = readJsonFile(schemaFile) as { 'x-mcp-flow'?: { direction?: string } };
  return schema['x-mcp-flow']?.direction === 'server-to-client' ? 'client' : 'server';
}

function messageVectors(root: string): Vector[] {
  const schemasRoot = join(root, 'schemas');
  const out: Vector[] = [];
  for (const path of listExampleFiles(schemasRoot)) {
    const rel = relative(schemasRoot, path).split(sep).join('/');
    const base = rel.slice(0, -'.examples.json'.length); // e.g. core/2025-06-18/tools-call.request
    const match = /(?:^|\/)([^/]+)\.([a-z]+)$/.exec(base);
    if (!match || !MESSAGE_KINDS.has(match[2]!)) continue;
    const slug = match[1]!;
    const examples = readJsonFile(path) as ExamplesFile;
    if (examples.valid !== undefined && !Array.isArray(examples.valid)) {
      throw new VectorGeneratorInputError(path, '"valid" must be an array of examples');
    }
    const role = readerOf(join(schemasRoot, `${base}.schema.json`));
    const isInitialize = slug === 'initialize';
    (examples.valid ?? []).forEach((example, index) => {
      const message = example.instance as Message;
      const description = typeof example.description === 'string' ? example.description : `example ${index}`;
      const source = `${rel}#/valid/${index}`;
      out.push({
        ...control('messages', {
          name: `${base}/${index}/json`,
          description: `${description} (JSON frame)`,
          role,
          encoding: 'json',
          negotiated: !isInitialize,
          frames: [{ encoding: 'json', message }],
          profile: isInitialize ? ['WT-FRAME-1', role === 'server' ? 'WT-ENC-1' : 'WT-ENC-2'] : ['WT-FRAME-1'],
        }),
        source,
      });
      if (isInitialize) {
        const { error, requirement } = wireError('ENCODING_MISMATCH');
        out.push({
          id: `messages/${base}/${index}/cbor`,
          description: `${description} (CBOR frame: initialize must be JSON)`,
          kind: 'control',
          hex: hex(frame(cborBody(message))),
          encoding: 'json',
          negotiated: false,
          role,
          error,
          profile: ['WT-FRAME-1', requirement],
          source,
        });
      } else {
        out.push({
          ...control('messages', {
            name: `${base}/${index}/cbor`,
            description: `${description} (CBOR frame)`,
            role,
            encoding: 'cbor',
            negotiated: true,
            frames: [{ encoding: 'cbor', message }],
            profile: ['WT-FRAME-1', 'WT-ENC-10'],
          }),
          source,
        });
      }
    });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

function file(vectors: Vector[]): VectorFile {
  return { format: VECTOR_FORMAT, version: VECTOR_VERSION, vectors };
}

/** Every vector file, keyed by its name in vectors/. Deterministic: same inputs, same output. */
export function generateVectorFiles(root: string = repoRoot): Record<string, VectorFile> {
  return {
    'control.json': file(controlVectors()),
    'exec-header.json': file(execVectors()),
    'datagram.json': file(datagramVectors()),
    'invalid.json': file(invalidVectors()),
    'messages.json': file(messageVectors(root)),
  };
}

/** The exact text each file is written with. */
export function serializeVectorFile(content: VectorFile): string {
  return `${JSON.stringify(content, null, 2)}\n`;
}

function run(args: string[]): number {
  const check = args.includes('--check');
  let stale = 0;
  for (const [name, content] of Object.entries(generateVectorFiles())) {
    const path = join(repoRoot, 'vectors', name);
    const text = serializeVectorFile(content);
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (check) {
      if (current !== text) {
        stale += 1;
        process.stderr.write(`vectors/${name} is out of date: run npx tsx scripts/generate-vectors.ts\n`);
      }
    } else {
      if (current !== text) writeFileSync(path, text);
      process.stdout.write(`vectors/${name}: ${content.vectors.length} vectors${current === text ? ' (unchanged)' : ''}\n`);
    }
  }
  return stale === 0 ? 0 : 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = run(process.argv.slice(2));
}
