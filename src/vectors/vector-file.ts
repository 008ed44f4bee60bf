// The test-vector file format (vectors/README.md): reading, checking and decoding vectors through
// the wire layer. Used by the `self-check` command, the generator's tests and other tools.
import { resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { REQUIREMENT_ID_PATTERN } from '../common/requirement-id.js';
import {
  ControlStreamReader,
  ControlStreamWriter,
  EncodingState,
  ExecHeaderDecoder,
  WireError,
  codecFor,
  decodeDatagram,
  encodeDatagram,
  encodeExecHeader,
  fromHex,
  toHex,
  type ControlRole,
  type EncodingName,
} from '../wire/index.js';
import { isRecord } from '../wire/index.js';
import { findPackageFolder } from '../package-folder.js';

/** The package's own vectors/ folder, found upwards from this file (in src/ and in dist/src/). */
export function defaultVectorsDir(): string {
  return findPackageFolder(import.meta.url, 'vectors', 'README.md') ?? resolve('vectors');
}

export const VECTOR_FORMAT = 'mcp-flow-conformance/vectors';
export const VECTOR_VERSION = 1;
export const VECTOR_KINDS = ['control', 'exec', 'datagram'] as const;
/** Lower-case hex, two digits per byte, no separators. */
const HEX = /^(?:[0-9a-f]{2})*$/;

/** A JSON value; integers beyond 2^53-1 in magnitude appear as `{"$bigint": "<decimal>"}`. */
export type VectorValue = null | boolean | number | string | VectorValue[] | { [key: string]: VectorValue };

export interface VectorError {
  code: string;
  jsonRpcCode: number;
}

export interface Vector {
  id: string;
  description: string;
  kind: (typeof VECTOR_KINDS)[number];
  hex: string;
  encoding?: EncodingName;
  negotiated?: boolean;
  role?: ControlRole;
  maxMessageSize?: number;
  decoded?: VectorValue;
  error?: VectorError;
  profile: string[];
  frameEncodings?: EncodingName[];
  source?: string;
}

export interface VectorFile {
  format: typeof VECTOR_FORMAT;
  version: typeof VECTOR_VERSION;
  vectors: Vector[];
}

/** A vector file that is not in the documented format. Names the file and, when known, the vector. */
export class VectorFileError extends Error {
  readonly code = 'VECTOR_FILE_INVALID';
  readonly file: string;
  /** What is wrong, without the file name. */
  readonly detail: string;
  constructor(file: string, detail: string, options?: { cause?: unknown }) {
    super(`${file}: ${detail}`, options);
    this.name = 'VectorFileError';
    this.file = file;
    this.detail = detail;
  }
}

/** Parses and shape-checks one vector file's text. Throws VectorFileError naming what is wrong. */
export function parseVectorFile(text: string, file: string): VectorFile {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new VectorFileError(file, `not valid JSON: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(doc)) throw new VectorFileError(file, 'must hold a JSON object');
  if (doc.format !== VECTOR_FORMAT) {
    throw new VectorFileError(file, `"format" must be ${JSON.stringify(VECTOR_FORMAT)}, found ${JSON.stringify(doc.format)}`);
  }
  if (doc.version !== VECTOR_VERSION) {
    throw new VectorFileError(file, `"version" ${JSON.stringify(doc.version)} is not supported (this reader knows ${VECTOR_VERSION})`);
  }
  if (!Array.isArray(doc.vectors)) throw new VectorFileError(file, '"vectors" must be an array');
  const seen = new Set<string>();
  doc.vectors.forEach((v: unknown, index: number) => {
    const where = `vectors[${index}]${isRecord(v) && typeof v.id === 'string' ? ` (${v.id})` : ''}`;
    const problem = vectorShapeProblem(v);
    if (problem) throw new VectorFileError(file, `${where}: ${problem}`);
    const id = (v as Vector).id;
    if (seen.has(id)) throw new VectorFileError(file, `${where}: duplicate id`);
    seen.add(id);
  });
  return doc as unknown as VectorFile;
}

function vectorShapeProblem(v: unknown): string | undefined {
  if (!isRecord(v)) return 'must be an object';
  if (typeof v.id !== 'string' || v.id === '') return '"id" must be a non-empty string';
  if (typeof v.description !== 'string') return '"description" must be a string';
  if (!(VECTOR_KINDS as readonly unknown[]).includes(v.kind)) return `"kind" must be one of ${VECTOR_KINDS.join(', ')}`;
  if (typeof v.hex !== 'string' || !HEX.test(v.hex)) return '"hex" must be lower-case hex, two digits per byte';
  if (v.encoding !== undefined && v.encoding !== 'json' && v.encoding !== 'cbor') return '"encoding" must be "json" or "cbor"';
  if (v.kind === 'control') {
    if (v.encoding === undefined) return 'a control vector needs "encoding"';
    if (typeof v.negotiated !== 'boolean') return 'a control vector needs "negotiated" (boolean)';
    if (!v.negotiated && v.encoding !== 'json') return '"encoding" must be "json" while "negotiated" is false';
    if (v.role !== 'client' && v.role !== 'server') return 'a control vector needs "role" ("client" or "server")';
  }
  if (v.kind === 'datagram' && v.encoding === undefined) return 'a datagram vector needs "encoding"';
  if (v.maxMessageSize !== undefined && !(Number.isInteger(v.maxMessageSize) && (v.maxMessageSize as number) >= 1)) {
    return '"maxMessageSize" must be a positive integer';
  }
  if (('decoded' in v) === ('error' in v)) return 'exactly one of "decoded" and "error" is required';
  if ('decoded' in v) {
    const problem = decodedShapeProblem(v.kind as Vector['kind'], v.decoded);
    if (problem) return `"decoded": ${problem}`;
  }
  if ('error' in v) {
    const e = v.error;
    if (!isRecord(e) || typeof e.code !== 'string' || !Number.isInteger(e.jsonRpcCode)) {
      return '"error" must be {"code": string, "jsonRpcCode": integer}';
    }
  }
  if (!Array.isArray(v.profile) || v.profile.length === 0) return '"profile" must be a non-empty array of requirement IDs';
  const badId = v.profile.find((id) => typeof id !== 'string' || !REQUIREMENT_ID_PATTERN.test(id));
  if (badId !== undefined) return `profile entry ${JSON.stringify(badId)} is not a requirement ID (<SYSTEM>-<AREA>-<n>)`;
  return undefined;
}

function isU32(value: unknown, max = 0xffff_ffff): boolean {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max;
}

/** What is wrong with a `decoded` value for its kind (vectors/README.md), or undefined. */
function decodedShapeProblem(kind: Vector['kind'], decoded: unknown): string | undefined {
  if (kind === 'control') return Array.isArray(decoded) && decoded.length > 0 ? undefined : 'must be a non-empty array of messages';
  if (!isRecord(decoded)) return 'must be an object';
  if (!isU32(decoded.requestId)) return '"requestId" must be an integer in 0..4294967295';
  if (typeof decoded.payloadHex !== 'string' || !HEX.test(decoded.payloadHex)) return '"payloadHex" must be lower-case hex';
  if (kind === 'exec') return isU32(decoded.streamTag) ? undefined : '"streamTag" must be an integer in 0..4294967295';
  if (!isU32(decoded.channel, 0xff) || !isU32(decoded.flags, 0xff)) return '"channel" and "flags" must be integers in 0..255';
  return undefined;
}

/** A decoded value in vector form: BigInt outside the double-exact range becomes `{"$bigint": "..."}`. */
export function toVectorValue(value: unknown): VectorValue {
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isSafeInteger(n) && BigInt(n) === value ? n : { $bigint: value.toString(10) };
  }
  if (Array.isArray(value)) return value.map(toVectorValue);
  // A CBOR byte string never appears in an expected value; shown this way it fails the comparison readably.
  if (value instanceof Uint8Array) return { $bytes: toHex(value) };
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, toVectorValue(item)]));
  return value as VectorValue;
}

/** The in-memory value a vector value stands for: `{"$bigint": "..."}` becomes a BigInt. */
export function fromVectorValue(value: VectorValue): unknown {
  if (Array.isArray(value)) return value.map(fromVectorValue);
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    if (keys.length === 1 && keys[0] === '$bigint' && typeof value.$bigint === 'string') return BigInt(value.$bigint);
    return Object.fromEntries(keys.map((k) => [k, fromVectorValue(value[k]!)]));
  }
  return value;
}

// ---------------------------------------------------------------------------------------------
// Running a vector through src/wire

/** What the wire layer made of a vector: the decoded value (control: with each frame's encoding) or the first error. */
export type VectorOutcome =
  | { decoded: VectorValue; frameEncodings?: EncodingName[] }
  | { error: VectorError & { requirement: string; message: string } };

function failure(error: WireError): VectorOutcome {
  return { error: { code: error.code, jsonRpcCode: error.jsonRpcCode, requirement: error.requirement, message: error.message } };
}

function controlState(vector: Vector): EncodingState {
  const state = new EncodingState();
  if (vector.negotiated) state.switchTo(vector.encoding ?? 'json');
  return state;
}

/** Splits `bytes` into chunks of `size` (the whole input when size is undefined). */
function chunks(bytes: Uint8Array, size: number | undefined): Uint8Array[] {
  if (size === undefined || size >= bytes.length) return [bytes];
  const out: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/**
 * Decodes a vector's bytes the way a receiver would: control bytes through a ControlStreamReader
 * (fed in chunks of `chunkSize`, then end of stream), exec bytes through decodeExecHeader, datagram
 * bytes through decodeDatagram and, for progress and log, the codec of the vector's encoding.
 * The first WireError is the outcome; anything else thrown is a bug and propagates.
 */
export function decodeVector(vector: Vector, chunkSize?: number): VectorOutcome {
  const bytes = fromHex(vector.hex);
  try {
    if (vector.kind === 'control') {
      const reader = new ControlStreamReader({
        state: controlState(vector),
        role: vector.role ?? 'server',
        ...(vector.maxMessageSize === undefined ? {} : { maxMessageSize: vector.maxMessageSize }),
      });
      const messages: unknown[] = [];
      const frameEncodings: EncodingName[] = [];
      for (const chunk of chunks(bytes, chunkSize)) {
        for (const item of reader.push(chunk)) {
          if (item instanceof WireError) return failure(item);
          messages.push(item.message);
          frameEncodings.push(item.encoding);
        }
      }
      reader.end();
      return { decoded: toVectorValue(messages), frameEncodings };
    }
    if (vector.kind === 'exec') {
      const stream = new ExecHeaderDecoder();
      const payload: string[] = [];
      for (const chunk of chunks(bytes, chunkSize)) {
        const got = stream.push(chunk);
        if (got) payload.push(toHex(got.rest));
      }
      stream.end();
      const header = stream.header!;
      return { decoded: { requestId: header.requestId, streamTag: header.streamTag, payloadHex: payload.join('') } };
    }
    const datagram = decodeDatagram(bytes);
    const decoded: Record<string, VectorValue> = {
      channel: datagram.channel,
      flags: datagram.flags,
      requestId: datagram.requestId,
      payloadHex: toHex(datagram.payload),
    };
    if (datagram.channelName !== 'audio') {
      decoded.payload = toVectorValue(codecFor(vector.encoding ?? 'json').decode(datagram.payload));
    }
    return { decoded };
  } catch (error) {
    if (error instanceof WireError) return failure(error);
    throw error;
  }
}

/**
 * Re-encodes a valid vector's `decoded` value through src/wire and returns the hex: control
 * messages through a ControlStreamWriter held by the peer of the vector's reader (so the writer
 * switches encoding after the initialize result exactly as the reader does), exec and datagram
 * headers through their encoders, progress and log payloads through the codec.
 */
export function encodeVector(vector: Vector): string {
  const decoded = fromVectorValue(vector.decoded ?? null);
  if (vector.kind === 'control') {
    const writer = new ControlStreamWriter({
      state: controlState(vector),
      role: vector.role === 'client' ? 'server' : 'client',
      ...(vector.maxMessageSize === undefined ? {} : { maxMessageSize: vector.maxMessageSize }),
    });
    return (decoded as unknown[]).map((message) => toHex(writer.encode(message))).join('');
  }
  const fields = decoded as Record<string, unknown>;
  if (vector.kind === 'exec') {
    const header = encodeExecHeader({ requestId: fields.requestId as number, streamTag: fields.streamTag as number });
    return toHex(header) + (fields.payloadHex as string);
  }
  const payload = 'payload' in fields ? codecFor(vector.encoding ?? 'json').encode(fields.payload) : fromHex(fields.payloadHex as string);
  return toHex(
    encodeDatagram({ channel: fields.channel as number, flags: fields.flags as number, requestId: fields.requestId as number, payload }),
  );
}

/** Chunk sizes each vector is decoded with: whole, then byte by byte (in 997-byte pieces for long inputs). */
function chunkSizesFor(vector: Vector): Array<number | undefined> {
  return [undefined, vector.hex.length / 2 <= 8192 ? 1 : 997];
}

/** Everything wrong with one vector when run through src/wire; [] when it passes. */
export function checkVector(vector: Vector): string[] {
  const problems: string[] = [];
  for (const size of chunkSizesFor(vector)) {
    const how = size === undefined ? 'in one chunk' : `in ${size}-byte chunks`;
    let outcome: VectorOutcome;
    try {
      outcome = decodeVector(vector, size);
    } catch (error) {
      problems.push(`decoding ${how} threw ${describeThrown(error)}`);
      continue;
    }
    if (vector.error) {
      if (!('error' in outcome)) {
        problems.push(`decoding ${how} succeeded; expected ${vector.error.code} (${vector.error.jsonRpcCode})`);
      } else if (outcome.error.code !== vector.error.code || outcome.error.jsonRpcCode !== vector.error.jsonRpcCode) {
        problems.push(
          `decoding ${how} failed with ${outcome.error.code} (${outcome.error.jsonRpcCode}); expected ${vector.error.code} (${vector.error.jsonRpcCode})`,
        );
      }
    } else if ('error' in outcome) {
      problems.push(`decoding ${how} failed with ${outcome.error.code} (${outcome.error.jsonRpcCode}): ${outcome.error.message}`);
    } else if (!isDeepStrictEqual(outcome.decoded, vector.decoded)) {
      problems.push(`decoding ${how} gave ${preview(outcome.decoded)}; expected ${preview(vector.decoded)}`);
    } else if (vector.frameEncodings && !isDeepStrictEqual(outcome.frameEncodings, vector.frameEncodings)) {
      problems.push(`decoding ${how} read the frames as ${preview(outcome.frameEncodings)}; expected ${preview(vector.frameEncodings)}`);
    }
  }
  if (!vector.error) {
    try {
      const hex = encodeVector(vector);
      if (hex !== vector.hex) problems.push(`re-encoding gave ${preview(hex)}; expected ${preview(vector.hex)}`);
    } catch (error) {
      problems.push(`re-encoding threw ${describeThrown(error)}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// The command

function describeThrown(error: unknown): string {
  if (error instanceof Error) return `${error.name}${'code' in error ? ` ${String(error.code)}` : ''}: ${error.message}`;
  return String(error);
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 160)}... (${text.length} characters)` : text;
}
