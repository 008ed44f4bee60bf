// The message data model both codecs share: what a JSON-RPC message may contain, checked before
// encoding so a bad value is a typed error with a JSON Pointer rather than silent JSON.stringify loss.
//
// Accepted: null, booleans, strings, numbers, arrays, plain objects (and Maps with string keys,
// written as objects). Object properties whose value is undefined are treated as absent (as
// JSON.stringify does). JSON additionally refuses non-finite numbers, BigInt and byte strings;
// CBOR carries non-finite floats, Uint8Array byte strings and BigInt in -2^63..2^64-1.
// Everything else (undefined elsewhere, functions, symbols, Sets, Dates, class instances, cycles,
// Maps with non-string keys) is an UnencodableValueError.
import { UnencodableValueError } from './errors.js';

const U32_MAX = 0xffff_ffff;
const NEG_32_MIN = -0x1_0000_0000;
const U64_MAX = (1n << 64n) - 1n;
// cbor-x writes BigInts below -2^63 as tag-3 bignums rather than major type 1, so they are refused.
const NEG_64_MIN = -(1n << 63n);

type Mode = 'json' | 'cbor';

/**
 * Returns the value to hand to the underlying encoder: the same object when nothing needs changing,
 * otherwise a copy with undefined properties dropped, Maps turned into objects and (CBOR) integers
 * outside the 32-bit range turned into BigInt so they are written as CBOR integers, never float64.
 */
export function toWireValue(value: unknown, mode: Mode): unknown {
  return normalize(value, mode, [], []);
}

/** The walk's position: member names and indexes, turned into a JSON Pointer only for an error. */
type Path = Array<string | number>;

function fail(mode: Mode, path: Path, reason: string): never {
  throw new UnencodableValueError(mode, path.map((k) => `/${escapePointer(String(k))}`).join(''), reason);
}

function normalize(value: unknown, mode: Mode, path: Path, ancestors: object[]): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) {
        if (mode === 'json') fail(mode, path, `${value} is not a JSON number`);
        return value;
      }
      if (mode === 'cbor' && Number.isInteger(value) && (value > U32_MAX || value < NEG_32_MIN)) {
        if (!Number.isSafeInteger(value)) return value; // already imprecise: keep it a float
        return BigInt(value);
      }
      return value;
    case 'bigint':
      if (mode === 'json') {
        fail(mode, path, `BigInt ${value} has no JSON form (JSON numbers are IEEE doubles)`);
      }
      if (value > U64_MAX || value < NEG_64_MIN) {
        fail(mode, path, `BigInt ${value} is outside the encodable CBOR integer range -2^63..2^64-1`);
      }
      return value;
    case 'undefined':
      fail(mode, path, 'undefined is not a JSON-RPC value');
    case 'function':
      fail(mode, path, 'a function is not a JSON-RPC value');
    case 'symbol':
      fail(mode, path, 'a symbol is not a JSON-RPC value');
    case 'object':
      break;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.includes(object)) fail(mode, path, 'circular reference');
  if (object instanceof Uint8Array) {
    if (mode === 'json') fail(mode, path, 'a byte string has no JSON form');
    return object;
  }
  ancestors.push(object);
  try {
    if (Array.isArray(object)) return normalizeArray(object, mode, path, ancestors);
    if (object instanceof Map) return normalizeMap(object, mode, path, ancestors);
    const proto = Object.getPrototypeOf(object);
    if (proto !== Object.prototype && proto !== null) {
      const kind = (proto as { constructor?: { name?: string } }).constructor?.name ?? 'object';
      fail(mode, path, `a ${kind} instance is not a plain JSON-RPC object`);
    }
    return normalizeObject(object as Record<string, unknown>, mode, path, ancestors);
  } finally {
    ancestors.pop();
  }
}

function normalizeArray(array: unknown[], mode: Mode, path: Path, ancestors: object[]): unknown[] {
  let copy: unknown[] | undefined;
  for (let i = 0; i < array.length; i++) {
    path.push(i);
    if (!(i in array)) fail(mode, path, 'a sparse array hole is not a JSON-RPC value');
    const item = array[i];
    const out = normalize(item, mode, path, ancestors);
    path.pop();
    if (out !== item && copy === undefined) copy = array.slice(0, i);
    if (copy !== undefined) copy.push(out);
  }
  return copy ?? array;
}

function normalizeObject(object: Record<string, unknown>, mode: Mode, path: Path, ancestors: object[]): object {
  if (Object.getOwnPropertySymbols(object).length > 0) {
    fail(mode, path, 'symbol-keyed properties are not JSON-RPC members');
  }
  const keys = Object.keys(object);
  let copy: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const item = object[key];
    if (item === undefined) {
      copy ??= copyKeys(object, keys, i);
      continue;
    }
    path.push(key);
    const out = normalize(item, mode, path, ancestors);
    path.pop();
    if (out !== item) copy ??= copyKeys(object, keys, i);
    if (copy !== undefined) define(copy, key, out);
  }
  return copy ?? object;
}

function normalizeMap(map: Map<unknown, unknown>, mode: Mode, path: Path, ancestors: object[]): object {
  const copy: Record<string, unknown> = {};
  for (const [key, item] of map) {
    if (typeof key !== 'string') {
      fail(mode, path, `a Map key of type ${typeof key} is not a JSON-RPC member name`);
    }
    if (item === undefined) continue;
    path.push(key);
    define(copy, key, normalize(item, mode, path, ancestors));
    path.pop();
  }
  return copy;
}

function copyKeys(object: Record<string, unknown>, keys: string[], count: number): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    if (object[key] !== undefined) define(copy, key, object[key]);
  }
  return copy;
}

/** Sets an own data property, `__proto__` included (plain assignment would set the prototype). */
export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON object: not null, not an array (what a JSON-RPC message or its params must be). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
