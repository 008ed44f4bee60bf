// bad-input: message-level garbage, the same on every transport (sent through the connection's own
// encoding and framing): invalid JSON-RPC envelopes (-32600), params of the wrong type (-32602),
// unknown methods (-32601), and huge or deeply nested values (one answer, session still alive).
// Generated input expects only what every accepted reading agrees on (docs/profile.md §2, rule 5);
// the readings a server took are reported as INFO, and garbage it leaves unanswered is CORE-RPC-17's.
import fc from 'fast-check';
import { defineCase, type CaseContext } from '../../../../src/harness/index.js';
import { findMethod } from '../../../../src/protocol/methods.js';
import { isRecord } from '../../../../src/wire/index.js';
import { openSession, type Message } from '../../../support/session.js';
import { BadInputMismatch, GarbageTally, PingTally, expectError, sendThenPing, unanswered, type GarbageOutcome } from './exchange.js';

const SUITE = 'bad-input';
/** Property runs per case (each is two round trips). */
const RUNS = 25;

/** One broken message and the answers the accepted readings allow (CORE-RPC-9, C-33). */
interface InvalidEnvelope {
  what: string;
  message: unknown;
  /** Ids an Invalid Request error may carry: the readable id (recommended) and null, or null only. */
  ids: Array<string | number | null>;
  /** The id a result may carry when the request may be served leniently (its only flaw is allowed by JSON-RPC or is its jsonrpc member). */
  served?: string | number | null;
  /** A malformed response: it may go unanswered. */
  response?: true;
}

/** Messages that parse but are not valid JSON-RPC requests (CORE-RPC-9). */
function invalidEnvelopes(nextId: () => number): fc.Arbitrary<InvalidEnvelope> {
  const id = fc.integer({ min: 1_000_000, max: 2_000_000 }).map((n) => n + nextId());
  const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.string({ maxLength: 20 }), fc.constant(null));
  return fc.oneof(
    fc.record({ id, jsonrpc: fc.oneof(fc.constantFrom('1.0', '2', '2.0.0', '', ' 2.0'), fc.constant(2), fc.constant(null)) }).map(({ id, jsonrpc }) => ({
      what: `a request with jsonrpc ${JSON.stringify(jsonrpc)}`,
      message: { jsonrpc, id, method: 'ping' },
      ids: [id, null],
      served: id,
    })),
    id.map((i) => ({ what: 'a request without jsonrpc', message: { id: i, method: 'ping' }, ids: [i, null], served: i })),
    // null and fractional ids are JSON-RPC's (MCP narrows them away): a lenient server may serve them.
    // A fraction is a readable JSON-RPC id ("Numbers SHOULD NOT contain fractional parts"): its refusal may echo it.
    fc.constant(null).map((bad) => ({ what: 'a request whose id is null', message: { jsonrpc: '2.0', id: bad, method: 'ping' }, ids: [null], served: bad })),
    fc.double({ min: 0.1, max: 1e6, noNaN: true }).filter((d) => !Number.isInteger(d)).map((bad) => ({
      what: `a request whose id is ${JSON.stringify(bad)}`,
      message: { jsonrpc: '2.0', id: bad, method: 'ping' },
      ids: [null, bad],
      served: bad,
    })),
    fc.oneof(fc.boolean(), fc.constant({}), fc.constant([1])).map((bad) => ({
      what: `a request whose id is ${JSON.stringify(bad)}`,
      message: { jsonrpc: '2.0', id: bad, method: 'ping' },
      ids: [null],
    })),
    fc.record({ id, method: fc.oneof(fc.integer(), fc.constant(null), fc.constant({ name: 'ping' }), fc.constant(['ping']), fc.boolean()) }).map(({ id, method }) => ({
      what: `a request whose method is ${JSON.stringify(method)}`,
      message: { jsonrpc: '2.0', id, method },
      ids: [id, null],
    })),
    id.map((i) => ({ what: 'a message with an id but no method, result or error', message: { jsonrpc: '2.0', id: i }, ids: [i, null], response: true as const })),
    id.map((i) => ({
      what: 'a response with both result and error',
      message: { jsonrpc: '2.0', id: i, result: {}, error: { code: -32603, message: 'x' } },
      ids: [i, null],
      response: true as const,
    })),
    scalar.map((value) => ({ what: `the non-object message ${JSON.stringify(value)}`, message: value, ids: [null] })),
  );
}

/**
 * Judges what one invalid envelope got: an accepted answer (its reading is tallied), silence
 * (CORE-RPC-17, tallied), -32700 for input that parsed (CORE-ERR-1, tallied), or a mismatch no
 * reading allows (thrown: the property's counterexample).
 */
function judgeInvalid(outcome: GarbageOutcome, input: InvalidEnvelope, tally: GarbageTally): void {
  if (outcome.closed) {
    tally.silent.push(`${input.what} (the connection closed)`);
    return;
  }
  if (outcome.status !== undefined) {
    tally.reading(`refused by the HTTP transport with HTTP ${outcome.status}`);
    return;
  }
  const served = input.served !== undefined ? outcome.results.find((m) => m.id === input.served) : undefined;
  if (served) {
    tally.reading(`${input.what} served leniently (a result)`, 3);
    return;
  }
  const error = outcome.errors[0];
  if (error) {
    const code = isRecord(error.error) ? error.error.code : undefined;
    if (code === -32700) {
      tally.parseErrors.push({ what: input.what, answer: error });
      return;
    }
    if (code !== -32600) throw new BadInputMismatch(`${input.what} was answered with error ${String(code)}, expected -32600 Invalid Request`, error);
    if (!input.ids.includes(error.id as string | number | null)) {
      throw new BadInputMismatch(`${input.what} was answered with id ${JSON.stringify(error.id)}, expected ${input.ids.map((i) => JSON.stringify(i)).join(' or ')}`, error);
    }
    // The ids are listed recommended first: null first means MCP reads no id there (a fraction), so null is the recommended answer.
    if (error.id === null && input.ids[0] !== null) tally.reading('-32600 with id null although the id was readable', 2);
    else tally.reading(error.id === null ? '-32600 with id null (no id to read)' : '-32600 echoing the id', 1);
    return;
  }
  if (outcome.results.length > 0) throw new BadInputMismatch(`${input.what} was answered with a result no reading allows`, outcome.results[0]);
  if (input.response) tally.reading('a malformed response left unanswered', 4);
  else tally.silent.push(input.what);
}

const invalidRequests = defineCase({
  id: `${SUITE}/invalid-json-rpc-requests`,
  suite: SUITE,
  title: 'a message that parses but is not a valid JSON-RPC request gets -32600 Invalid Request (id echoed or null), is served leniently, or (a malformed response) is left unanswered; never -32700; ping still works',
  requirements: ['CORE-RPC-9', 'CORE-RPC-16', 'CORE-RPC-17', 'CORE-ERR-1'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const tally = new GarbageTally();
    await ctx.property(
      'CORE-RPC-9',
      invalidEnvelopes(() => ctx.nextId()),
      async (input) => {
        const outcome = await sendThenPing(ctx, () => ctx.connection.send(input.message));
        pings.record(outcome, input.what);
        judgeInvalid(outcome, input, tally);
        return true;
      },
      { numRuns: RUNS },
    );
    ctx.check('CORE-ERR-1', tally.parseErrors.length === 0, {
      message: 'no input that parsed is answered with -32700 Parse error (its meaning: invalid JSON was received)',
      expected: '-32600 Invalid Request',
      ...(tally.parseErrors.length ? { actual: tally.parseErrors.slice(0, 3) } : {}),
    });
    tally.report(ctx, 'CORE-RPC-9');
    pings.check(ctx);
  },
});

/** A declared method and the params member that must have a given type. */
interface TypedMember {
  method: string;
  member: string;
  /** The other members a valid call carries. */
  rest: Message;
}

function typedMembers(ctx: CaseContext): TypedMember[] {
  const caps = ctx.discovery.capabilities ?? {};
  const members: TypedMember[] = [];
  if (caps.tools !== undefined) members.push({ method: 'tools/call', member: 'name', rest: { arguments: {} } });
  if (caps.tools !== undefined) members.push({ method: 'tools/call', member: 'arguments', rest: { name: ctx.discovery.tools?.[0] ?? 'x-conformance-tool' } });
  if (caps.resources !== undefined) members.push({ method: 'resources/read', member: 'uri', rest: {} });
  if (caps.prompts !== undefined) members.push({ method: 'prompts/get', member: 'name', rest: {} });
  if (caps.logging !== undefined) members.push({ method: 'logging/setLevel', member: 'level', rest: {} });
  return members;
}

const wrongTypes = defineCase({
  id: `${SUITE}/params-of-the-wrong-type`,
  suite: SUITE,
  title: 'a known method whose params member has the wrong type is answered with -32602 Invalid params, and ping still works',
  requirements: ['CORE-RPC-11', 'CORE-RPC-16'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  applies: (discovery) => {
    const caps = discovery.capabilities ?? {};
    return ['tools', 'resources', 'prompts', 'logging'].some((c) => caps[c] !== undefined) ? true : 'the target declared none of tools, resources, prompts, logging';
  },
  async run(ctx) {
    await openSession(ctx);
    const members = typedMembers(ctx);
    const pings = new PingTally();
    const wrong = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.constant({ nested: true }));
    const input = fc.record({ target: fc.constantFrom(...members), value: wrong }).filter(({ target, value }) => {
      // `arguments` must be an object: only non-objects are wrong there; the other members are strings.
      if (target.member === 'arguments') return value === null || typeof value !== 'object' || Array.isArray(value);
      return true;
    });
    await ctx.property(
      'CORE-RPC-11',
      input,
      async ({ target, value }) => {
        const id = ctx.nextId();
        const what = `${target.method} with ${target.member}: ${JSON.stringify(value)}`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method: target.method, params: { ...target.rest, [target.member]: value } }));
        pings.record(outcome, what);
        expectError(outcome, what, [-32602], [id]);
        return true;
      },
      { numRuns: RUNS },
    );
    pings.check(ctx);
  },
});

const paramsNotObject = defineCase({
  id: `${SUITE}/params-not-an-object`,
  suite: SUITE,
  title: 'a request whose params is not an object (a positional array, a string, a number) is refused with -32600 or -32602 or served as if params were absent; ping still works',
  requirements: ['CORE-RPC-2', 'CORE-RPC-16', 'CORE-RPC-17'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const tally = new GarbageTally();
    for (const params of [['positional', 1], 'a string', 42, true]) {
      const id = ctx.nextId();
      const what = `ping with params ${JSON.stringify(params)}`;
      const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method: 'ping', params }));
      pings.record(outcome, what);
      if (outcome.closed || unanswered(outcome)) {
        // Not a valid MCP request (MCP narrows JSON-RPC's params to an object), so leaving it unanswered is CORE-RPC-17's.
        tally.silent.push(outcome.closed ? `${what} (the connection closed)` : what);
        continue;
      }
      if (outcome.status !== undefined) {
        tally.reading(`refused by the HTTP transport with HTTP ${outcome.status}`);
        continue;
      }
      if (outcome.results.some((m) => m.id === id)) {
        tally.reading('served as if params were absent', 2);
        continue;
      }
      try {
        const error = expectError(outcome, what, [-32600, -32602], [id, null]);
        tally.reading(`refused with ${String((error.error as { code: number }).code)}`, 1);
      } catch (error) {
        if (!(error instanceof BadInputMismatch)) throw error;
        ctx.check('CORE-RPC-2', false, { message: error.message, expected: 'error -32600 or -32602, or a result', actual: error.actual });
      }
    }
    tally.report(ctx, 'CORE-RPC-2');
    pings.check(ctx);
  },
});

const unknownMethods = defineCase({
  id: `${SUITE}/unknown-methods`,
  suite: SUITE,
  title: 'a request for a method the server does not implement is answered with -32601 Method not found, and ping still works',
  requirements: ['CORE-RPC-10', 'CORE-RPC-16'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const segment = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_.$-]{0,15}$/);
    const name = fc
      .oneof(
        fc.tuple(segment, segment).map(([a, b]) => `x-conformance-${a}/${b}`),
        segment.map((a) => `x-conformance-${a}`),
        fc.string({ minLength: 1, maxLength: 24 }).map((s) => `x-conformance/${s}`),
      )
      .filter((method) => findMethod(method) === undefined);
    await ctx.property(
      'CORE-RPC-10',
      name,
      async (method) => {
        const id = ctx.nextId();
        const what = `the unknown method ${JSON.stringify(method)}`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method, params: {} }));
        pings.record(outcome, what);
        expectError(outcome, what, [-32601], [id]);
        return true;
      },
      { numRuns: RUNS },
    );
    pings.check(ctx);
  },
});

/** A value nested `depth` levels deep (alternating arrays and objects). */
function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { d: value };
  return value;
}

/**
 * Beyond these a server may refuse a message as too deep or too large to parse (001 §9: "Set
 * reasonable message size limits"; parsers bound their nesting), so what it does then is
 * CORE-RPC-17's recommendation, not CORE-RPC-16's MUST.
 */
const PARSER_DEPTH_BOUND = 64;
const MESSAGE_SIZE_BOUND = 64 * 1024;

const hugeAndDeep = defineCase({
  id: `${SUITE}/huge-and-deep-values`,
  suite: SUITE,
  title: 'a request carrying a huge string, many members or deeply nested values is answered exactly once (result or error), or refused as too large; ping still works',
  requirements: ['CORE-RPC-16', 'CORE-RPC-17'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const tally = new GarbageTally();
    const value = fc.oneof(
      fc.integer({ min: 16, max: 400 }).map((depth) => ({ what: `a value nested ${depth} deep`, value: nested(depth), bounded: depth > PARSER_DEPTH_BOUND })),
      fc.integer({ min: 10_000, max: 200_000 }).map((n) => ({ what: `a string of ${n} characters`, value: 'x'.repeat(n), bounded: n > MESSAGE_SIZE_BOUND })),
      fc.integer({ min: 1_000, max: 5_000 }).map((n) => ({ what: `an object with ${n} members`, value: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])), bounded: false })),
      fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 50, maxLength: 200 }).map((items) => ({ what: `an array of ${items.length} JSON values`, value: items, bounded: false })),
    );
    await ctx.property(
      'CORE-RPC-16',
      value,
      async (input) => {
        const id = ctx.nextId();
        const what = `ping with ${input.what} in params`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method: 'ping', params: { 'x-conformance-payload': input.value } }));
        pings.record(outcome, what);
        const size = JSON.stringify(input.value).length;
        const limited = input.bounded || size > MESSAGE_SIZE_BOUND;
        if (outcome.status !== undefined) {
          tally.reading(`refused by the HTTP transport with HTTP ${outcome.status}`);
          return true;
        }
        const answers = [...outcome.errors, ...outcome.results].filter((m) => m.id === id || m.id === null);
        if (answers.length === 0 || outcome.closed) {
          if (!limited) throw new BadInputMismatch(`${what} got ${outcome.closed ? 'the connection closed' : 'no answer'}, expected exactly one`);
          tally.silent.push(`${what}${outcome.closed ? ' (the connection closed)' : ''}`);
          return true;
        }
        if (answers.length !== 1) throw new BadInputMismatch(`${what} got ${answers.length} answers, expected exactly one`, answers);
        tally.reading(answers[0]!.id === null ? 'refused before its id was read (an error with id null)' : 'result' in answers[0]! ? 'served' : 'refused with an error');
        return true;
      },
      { numRuns: 12 },
    );
    tally.report(ctx, 'CORE-RPC-16');
    pings.check(ctx);
  },
});

export const cases = [invalidRequests, wrongTypes, paramsNotObject, unknownMethods, hugeAndDeep];
