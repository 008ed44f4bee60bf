// fast-check arbitraries for JSON-RPC-like messages and small helpers, shared by the wire tests.
import fc from 'fast-check';

/** Member names, biased towards ones that trip naive object handling. */
export const memberName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ maxLength: 12, unit: 'binary' }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'toString', 'jsonrpc', 'id', '') },
);

/** Numbers JSON carries exactly: safe integers (including ones beyond 32 bits) and finite doubles, never -0. */
export const jsonNumber = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(2 ** 32, 2 ** 32 - 1, -(2 ** 31) - 1, -(2 ** 32), -(2 ** 32) - 1, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x)),
);

const jsonLeaf = fc.oneof(fc.constant(null), fc.boolean(), jsonNumber, fc.string({ maxLength: 20, unit: 'binary' }));

/** Any JSON value (objects, arrays, leaves), depth-bounded. */
export const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(memberName, tie('value'), { maxKeys: 5 }),
  ),
})).value;

const id = fc.oneof(fc.integer({ min: 0, max: 2 ** 31 }), fc.string({ maxLength: 8 }), fc.maxSafeNat());
const params = fc.dictionary(memberName, jsonValue, { maxKeys: 4 });

/** Requests, notifications, results and errors with arbitrary payloads. */
export const jsonRpcMessage: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id, method: fc.string({ minLength: 1, maxLength: 20 }), params }),
  fc.record({ jsonrpc: fc.constant('2.0'), method: fc.string({ minLength: 1, maxLength: 20 }), params }, { requiredKeys: ['jsonrpc', 'method'] }),
  fc.record({ jsonrpc: fc.constant('2.0'), id, result: jsonValue }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(id, fc.constant(null)),
    error: fc.record({ code: fc.integer({ min: -32768, max: 32767 }), message: fc.string({ maxLength: 20 }), data: jsonValue }, { requiredKeys: ['code', 'message'] }),
  }),
);

/** Split points for a byte array of length n: the chunk boundaries, sorted and unique. */
export function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of points) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

export function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The error `fn` throws (fails the test if it returns). */
export function captureError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}
