// The fuzz bench's inputs: fast-check arbitraries of JSON-RPC-ish messages, random bytes and
// broken frames, each with the answers the documents allow for it (docs/profile.md; the readings
// each requirement accepts). Only undisputed expectations (judging rule 5): where the profile
// accepts several readings, every one of them is accepted here.
import fc from 'fast-check';
import { findMethod } from '../../src/protocol/methods.js';
import { cborItemEnd } from '../../src/wire/cbor-scan.js';

export type RequestId = string | number;

/** The kinds of input, each one idea. */
export const FUZZ_KINDS = [
  'ping', // a valid ping, unknown members in params: answered with a result, id echoed (CORE-RPC-12, -15)
  'unknown-method', // a request for a method nobody defines: -32601, id echoed (CORE-RPC-10)
  'unknown-notification', // a notification nobody defines: never answered (CORE-RPC-6)
  'response', // a response to a request the server never sent: never answered (nothing is owed)
  'bad-params', // a known method, a required param of the wrong type: -32602 (CORE-RPC-11)
  'params-not-object', // params an array or a scalar: -32602 or -32600, or served as if absent (CORE-RPC-2)
  'bad-id', // an id that is no MCP id (null, fraction, unsafe integer, boolean, object, array): -32600 id null, or served (CORE-RPC-3, -9)
  'bad-jsonrpc', // jsonrpc missing or not "2.0": -32600 (id echoed or null), or served (CORE-RPC-9 reading 3)
  'bad-method', // method not a string: -32600, id echoed or null (CORE-RPC-9)
  'not-an-object', // a JSON scalar: -32600 id null (CORE-RPC-9)
  'array', // a JSON array of scalars (no batch under 2025-06-18): -32600 id null, or one -32600 per item (CORE-RPC-9, -13)
  'malformed-object', // an object with no method and not exactly one of result/error: -32600, or silence when it looks like a response (CORE-RPC-9 reading 4)
  'garbage', // bytes that are no JSON text: -32700 id null (CORE-RPC-8, WT-FRAME-4)
  'empty-frame', // WebTransport: a frame of length 0: -32600 or -32700, id null (WT-FRAME-2)
  'split-frame', // a valid ping whose frame or line arrives in pieces: answered (WT-FRAME-6)
  'http-refused', // Streamable HTTP: a POST the transport refuses (no session, wrong Content-Type, Accept): HTTP 4xx
] as const;
export type FuzzKind = (typeof FUZZ_KINDS)[number];

/** What may come back for an input. */
export type Expectation =
  /** Nothing at all (a notification, a response). */
  | { type: 'silence' }
  /** One answer: one of these error codes with one of these ids, or (`served`) a result echoing the id. */
  | {
      type: 'answer';
      codes: readonly number[];
      ids: readonly (RequestId | null)[];
      served?: boolean;
      orSilence?: boolean;
      result?: boolean;
      /** The session may end after the answer (the mock's reading for an empty frame: see empty-frame). */
      mayClose?: boolean;
    }
  /** An array of scalars: one -32600 with id null, or (batch reading) an array of `length` such errors. */
  | { type: 'batch-invalid'; length: number }
  /** Streamable HTTP only: a refusal with a 4xx status. */
  | { type: 'http-4xx' };

export interface FuzzInput {
  kind: FuzzKind;
  /** A JSON value to send as JSON text, or raw bytes. */
  body: { json: unknown } | { bytes: Uint8Array };
  expect: Expectation;
  /** split-frame: the body is written in pieces at these byte offsets. */
  splits?: number[];
  /** http-refused: what is wrong with the POST. */
  http?: 'no-session' | 'content-type' | 'accept';
}

export type Transport = 'stdio' | 'http' | 'wt';

/** An input is made once its id is known (the driver hands out unique readable ids). */
export type InputMaker = (id: RequestId) => FuzzInput;

const JSONRPC = '2.0';

/** A method name no document defines. */
const unknownMethod = fc.string({ maxLength: 24 }).filter((m) => findMethod(m) === undefined && !/^(interaction|fastworkflow|notifications|\$\/)/.test(m));

/** A member name other than the reserved `_meta`. */
const memberName = fc.string({ maxLength: 10 }).filter((k) => k !== '_meta' && k !== '__proto__');
const extraMembers = fc.dictionary(memberName, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 });
const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 12 }), fc.boolean(), fc.constant(null));

/** Ids MCP does not allow: null, fractions, unsafe integers, booleans, objects, arrays. */
const badId = fc.oneof(
  fc.constant(null),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
  fc.constantFrom(2 ** 53, 2 ** 53 + 2, -(2 ** 53) - 2, 1e300),
  fc.boolean(),
  fc.dictionary(memberName, fc.integer(), { maxKeys: 2 }),
  fc.array(fc.integer(), { maxLength: 2 }),
);

/** Strict UTF-8, then JSON: does `bytes` parse? (Also after lossy decoding, so disputed invalid UTF-8 inside strings is left out.) */
export function parsesAsJson(bytes: Uint8Array): boolean {
  const tryParse = (text: string) => {
    try {
      JSON.parse(text);
      return true;
    } catch {
      return false;
    }
  };
  return tryParse(Buffer.from(bytes).toString('utf8')) || tryParse(new TextDecoder('latin1').decode(bytes));
}

/** Bytes that are no JSON text, on any reading of their encoding (no newline: a line is one message on stdio). */
const garbageBytes = fc
  .oneof(
    fc.uint8Array({ minLength: 1, maxLength: 48 }),
    fc.string({ minLength: 1, maxLength: 48 }).map((s) => new TextEncoder().encode(s)),
    // JSON-looking text, cut or broken.
    fc.jsonValue({ maxDepth: 2 }).chain((v) => {
      const text = JSON.stringify(v) ?? 'null';
      return fc.integer({ min: 0, max: Math.max(0, text.length - 1) }).map((cut) => new TextEncoder().encode(`${text.slice(0, cut)}}{`));
    }),
  )
  .map((bytes) => bytes.filter((b) => b !== 0x0a))
  .filter((bytes) => bytes.length > 0 && !parsesAsJson(bytes));

/** The arbitrary of one transport's inputs. */
export function inputArbitrary(transport: Transport): fc.Arbitrary<InputMaker> {
  const kinds: fc.Arbitrary<InputMaker>[] = [
    extraMembers.map((params): InputMaker => (id) => ({ kind: 'ping', body: { json: { jsonrpc: JSONRPC, id, method: 'ping', params } }, expect: { type: 'answer', codes: [], ids: [id], result: true } })),
    fc.tuple(unknownMethod, fc.option(extraMembers, { nil: undefined })).map(([method, params]): InputMaker => (id) => ({
      kind: 'unknown-method',
      body: { json: { jsonrpc: JSONRPC, id, method, ...(params !== undefined ? { params } : {}) } },
      expect: { type: 'answer', codes: [-32601], ids: [id] },
    })),
    fc.tuple(unknownMethod, fc.option(extraMembers, { nil: undefined })).map(([method, params]): InputMaker => () => ({
      kind: 'unknown-notification',
      body: { json: { jsonrpc: JSONRPC, method, ...(params !== undefined ? { params } : {}) } },
      expect: { type: 'silence' },
    })),
    fc.jsonValue({ maxDepth: 2 }).map((result): InputMaker => (id) => ({
      kind: 'response',
      body: { json: { jsonrpc: JSONRPC, id, result: typeof result === 'object' && result !== null && !Array.isArray(result) ? result : { value: result } } },
      expect: { type: 'silence' },
    })),
    fc
      .tuple(
        // tools/call: every MCP Flow server declares tools (resources and prompts may be undeclared: -32601).
        fc.constant(['tools/call', 'name'] as const),
        fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), fc.constant(undefined)),
      )
      .map(([[method, member], value]): InputMaker => (id) => ({
        kind: 'bad-params',
        body: { json: { jsonrpc: JSONRPC, id, method, params: value === undefined ? {} : { [member]: value } } },
        expect: { type: 'answer', codes: [-32602], ids: [id] },
      })),
    fc
      .tuple(fc.constantFrom('ping', 'tools/list'), fc.oneof(fc.array(scalar, { maxLength: 3 }), scalar.filter((v) => v !== null)))
      .map(([method, params]): InputMaker => (id) => ({
        kind: 'params-not-object',
        body: { json: { jsonrpc: JSONRPC, id, method, params } },
        expect: { type: 'answer', codes: [-32602, -32600], ids: [id, null], served: true },
      })),
    badId.map((bad): InputMaker => () => {
      // null, a fraction or an unsafe integer is a JSON-RPC id MCP narrows away: serving it is lenient (CORE-RPC-9 reading 3).
      const jsonRpcId = bad === null || typeof bad === 'number';
      return {
        kind: 'bad-id',
        body: { json: { jsonrpc: JSONRPC, id: bad, method: 'ping' } },
        expect: { type: 'answer', codes: [-32600], ids: jsonRpcId ? [null, bad as RequestId] : [null], served: jsonRpcId },
      };
    }),
    fc.oneof(fc.constant(undefined), scalar.filter((v) => v !== '2.0')).map((jsonrpc): InputMaker => (id) => ({
      kind: 'bad-jsonrpc',
      body: { json: { ...(jsonrpc !== undefined ? { jsonrpc } : {}), id, method: 'ping' } },
      expect: { type: 'answer', codes: [-32600], ids: [id, null], served: true },
    })),
    fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), fc.dictionary(memberName, fc.integer(), { maxKeys: 2 })).map((method): InputMaker => (id) => ({
      kind: 'bad-method',
      body: { json: { jsonrpc: JSONRPC, id, method } },
      expect: { type: 'answer', codes: [-32600], ids: [id, null] },
    })),
    scalar.map((value): InputMaker => () => ({ kind: 'not-an-object', body: { json: value }, expect: { type: 'answer', codes: [-32600], ids: [null] } })),
    fc.array(scalar, { maxLength: 3 }).map((items): InputMaker => () => ({ kind: 'array', body: { json: items }, expect: { type: 'batch-invalid', length: items.length } })),
    fc
      .tuple(fc.constantFrom('no-id', 'id', 'both'), fc.dictionary(memberName.filter((k) => !['jsonrpc', 'id', 'method', 'result', 'error'].includes(k)), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }))
      .map(([shape, members]): InputMaker => (id) => {
        const message: Record<string, unknown> = { jsonrpc: JSONRPC, ...members };
        if (shape !== 'no-id') message['id'] = id;
        if (shape === 'both') Object.assign(message, { result: {}, error: { code: -32603, message: 'x' } });
        // Without an id it is no response: an Invalid Request, answered (CORE-RPC-17). With an id it may be a malformed response, which is owed nothing.
        return { kind: 'malformed-object', body: { json: message }, expect: { type: 'answer', codes: [-32600], ids: shape === 'no-id' ? [null] : [null, id], orSilence: shape !== 'no-id' } };
      }),
    garbageBytes.map((bytes): InputMaker => () => {
      // Over WebTransport, bytes that happen to be one well-formed CBOR item are a message in the other encoding: -32003 or -32700 (WT-ENC-5).
      const otherEncoding = transport === 'wt' && cborItemEnd(bytes) === bytes.length;
      return { kind: 'garbage', body: { bytes }, expect: { type: 'answer', codes: otherEncoding ? [-32700, -32003] : [-32700], ids: [null] } };
    }),
    fc.tuple(extraMembers, fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 4 })).map(([params, cuts]): InputMaker => (id) => ({
      kind: 'split-frame',
      body: { json: { jsonrpc: JSONRPC, id, method: 'ping', params } },
      expect: { type: 'answer', codes: [], ids: [id], result: true },
      splits: cuts,
    })),
  ];
  const weighted: fc.WeightedArbitrary<InputMaker>[] = kinds.map((arbitrary) => ({ arbitrary, weight: 100 }));
  if (transport === 'wt') {
    // The mock answers an empty frame (WT-FRAME-2) and then ends the session as after an oversized
    // one (WT-FRAME-7 names oversized frames only): each costs a new session, so they are rare here.
    const empty = fc.constant((): FuzzInput => ({ kind: 'empty-frame', body: { bytes: new Uint8Array(0) }, expect: { type: 'answer', codes: [-32600, -32700], ids: [null], mayClose: true } }));
    weighted.push({ arbitrary: empty, weight: 1 });
  }
  if (transport === 'http') {
    const refused = fc.tuple(fc.constantFrom('no-session' as const, 'content-type' as const, 'accept' as const), extraMembers).map(([how, params]): InputMaker => (id) => ({
      kind: 'http-refused',
      body: { json: { jsonrpc: JSONRPC, id, method: 'ping', params } },
      expect: { type: 'http-4xx' },
      http: how,
    }));
    weighted.push({ arbitrary: refused, weight: 100 });
  }
  return fc.oneof(...weighted);
}

/** `count` inputs of one transport, the same for the same seed. */
export function generateInputs(transport: Transport, count: number, seed: number): InputMaker[] {
  return fc.sample(inputArbitrary(transport), { numRuns: count, seed });
}

/** Says what is wrong with the answers to one input (undefined: they are among the allowed ones). */
export function judgeAnswers(expect: Expectation, answers: readonly unknown[]): string | undefined {
  const describe = (m: unknown) => JSON.stringify(m)?.slice(0, 160);
  if (expect.type === 'http-4xx') return 'a transport refusal was expected';
  if (expect.type === 'silence') return answers.length === 0 ? undefined : `answered although nothing is owed: ${describe(answers[0])}`;
  if (answers.length === 0) {
    if (expect.type === 'answer' && expect.orSilence) return undefined;
    return 'no answer';
  }
  if (answers.length > 1) return `answered ${answers.length} times: ${answers.map(describe).join(' ')}`;
  const answer = answers[0] as Record<string, unknown> | unknown[];
  if (expect.type === 'batch-invalid') {
    if (Array.isArray(answer)) {
      if (expect.length === 0) return `an array answered an empty batch: ${describe(answer)}`;
      const bad = answer.length !== expect.length || answer.some((a) => !isError(a, [-32600], [null]));
      return bad ? `batch answer is not ${expect.length} x -32600 with id null: ${describe(answer)}` : undefined;
    }
    return isError(answer, [-32600], [null]) ? undefined : `expected -32600 with id null, got ${describe(answer)}`;
  }
  if (Array.isArray(answer) || typeof answer !== 'object' || answer === null) return `an answer that is no JSON-RPC response: ${describe(answer)}`;
  if ('result' in answer && !('error' in answer)) {
    const idOk = expect.ids.some((id) => Object.is(id, answer['id']) || id === answer['id']);
    if ((expect.result || expect.served) && idOk && typeof answer['result'] === 'object' && answer['result'] !== null) return undefined;
    return `expected ${expectationText(expect)}, got a result: ${describe(answer)}`;
  }
  if (expect.result) return `expected a result with id ${JSON.stringify(expect.ids[0])}, got ${describe(answer)}`;
  return isError(answer, expect.codes, expect.ids) ? undefined : `expected ${expectationText(expect)}, got ${describe(answer)}`;
}

function expectationText(expect: Extract<Expectation, { type: 'answer' }>): string {
  return `error ${expect.codes.join(' or ')} with id ${expect.ids.map((id) => JSON.stringify(id)).join(' or ')}${expect.served ? ' (or a result)' : ''}`;
}

function isError(answer: unknown, codes: readonly number[], ids: readonly (RequestId | null)[]): boolean {
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return false;
  const m = answer as Record<string, unknown>;
  const error = m['error'] as Record<string, unknown> | undefined;
  return (
    m['jsonrpc'] === '2.0' &&
    !('result' in m) &&
    typeof error === 'object' &&
    error !== null &&
    codes.includes(error['code'] as number) &&
    typeof error['message'] === 'string' &&
    ids.some((id) => id === m['id'])
  );
}
