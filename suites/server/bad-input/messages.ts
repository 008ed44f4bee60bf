// bad-input: message-level garbage, the same on every transport (sent through the connection's own
// encoding and framing): invalid JSON-RPC envelopes (-32600), params of the wrong type (-32602),
// unknown methods (-32601), and huge or deeply nested values (one answer, session still alive).
import fc from 'fast-check';
import { defineCase, type CaseContext } from '../../../src/harness/index.js';
import { findMethod } from '../../../src/protocol/methods.js';
import { openSession, type Message } from '../support.js';
import { BadInputMismatch, PingTally, expectError, sendThenPing } from './exchange.js';

const SUITE = 'bad-input';
/** Property runs per case (each is two round trips). */
const RUNS = 25;

/** One broken message and the answer CORE-RPC-9 demands. */
interface InvalidEnvelope {
  what: string;
  message: unknown;
  /** Ids the error may carry. */
  ids: Array<string | number | null>;
}

/** Messages that parse but are not valid JSON-RPC requests (CORE-RPC-9). */
function invalidEnvelopes(nextId: () => number): fc.Arbitrary<InvalidEnvelope> {
  const id = fc.integer({ min: 1_000_000, max: 2_000_000 }).map((n) => n + nextId());
  const scalar = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.string({ maxLength: 20 }), fc.constant(null));
  return fc.oneof(
    fc.record({ id, jsonrpc: fc.oneof(fc.constantFrom('1.0', '2', '2.0.0', '', ' 2.0'), fc.constant(2), fc.constant(null)) }).map(({ id, jsonrpc }) => ({
      what: `a request with jsonrpc ${JSON.stringify(jsonrpc)}`,
      message: { jsonrpc, id, method: 'ping' },
      ids: [id],
    })),
    id.map((i) => ({ what: 'a request without jsonrpc', message: { id: i, method: 'ping' }, ids: [i] })),
    fc.oneof(fc.constant(null), fc.double({ min: 0.1, max: 1e6, noNaN: true }).filter((d) => !Number.isInteger(d)), fc.boolean(), fc.constant({}), fc.constant([1])).map((bad) => ({
      what: `a request whose id is ${JSON.stringify(bad)}`,
      message: { jsonrpc: '2.0', id: bad, method: 'ping' },
      ids: [null],
    })),
    fc.record({ id, method: fc.oneof(fc.integer(), fc.constant(null), fc.constant({ name: 'ping' }), fc.constant(['ping']), fc.boolean()) }).map(({ id, method }) => ({
      what: `a request whose method is ${JSON.stringify(method)}`,
      message: { jsonrpc: '2.0', id, method },
      ids: [id],
    })),
    id.map((i) => ({ what: 'a message with an id but no method, result or error', message: { jsonrpc: '2.0', id: i }, ids: [i] })),
    id.map((i) => ({ what: 'a response with both result and error', message: { jsonrpc: '2.0', id: i, result: {}, error: { code: -32603, message: 'x' } }, ids: [i, null] })),
    scalar.map((value) => ({ what: `the non-object message ${JSON.stringify(value)}`, message: value, ids: [null] })),
  );
}

const invalidRequests = defineCase({
  id: `${SUITE}/invalid-json-rpc-requests`,
  suite: SUITE,
  title: 'a message that parses but is not a valid JSON-RPC request is answered with -32600 Invalid Request (id echoed when readable, else null), and ping still works',
  requirements: ['CORE-RPC-9', 'CORE-RPC-16'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    await ctx.property(
      'CORE-RPC-9',
      invalidEnvelopes(() => ctx.nextId()),
      async (input) => {
        const outcome = await sendThenPing(ctx, () => ctx.connection.send(input.message));
        pings.record(outcome, input.what);
        expectError(outcome, input.what, [-32600], input.ids);
        return true;
      },
      { numRuns: RUNS },
    );
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
  title: 'a request whose params is not an object (a positional array, a string, a number) is refused with -32600 or -32602, and ping still works',
  requirements: ['CORE-RPC-2', 'CORE-RPC-16'],
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const codes = new Set<number>();
    for (const params of [['positional', 1], 'a string', 42, true]) {
      const id = ctx.nextId();
      const what = `ping with params ${JSON.stringify(params)}`;
      const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method: 'ping', params }));
      pings.record(outcome, what);
      try {
        const error = expectError(outcome, what, [-32600, -32602], [id, null]);
        codes.add((error.error as { code: number }).code);
        ctx.check('CORE-RPC-2', true, { message: `${what} is refused` });
      } catch (error) {
        if (!(error instanceof BadInputMismatch)) throw error;
        ctx.check('CORE-RPC-2', false, { message: error.message, expected: 'error -32600 or -32602', actual: error.actual });
      }
    }
    if (codes.size > 0) ctx.info('CORE-RPC-2', `params that is not an object was refused with ${[...codes].join(' and ')}`);
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

const hugeAndDeep = defineCase({
  id: `${SUITE}/huge-and-deep-values`,
  suite: SUITE,
  title: 'a request carrying a huge string, many members or deeply nested values is answered exactly once (result or error), and ping still works',
  requirements: ['CORE-RPC-16'],
  sendsInvalid: true,
  timeLimitMs: 18_000,
  async run(ctx) {
    await openSession(ctx);
    const pings = new PingTally();
    const refused = new Set<number>();
    const value = fc.oneof(
      fc.integer({ min: 16, max: 400 }).map((depth) => ({ what: `a value nested ${depth} deep`, value: nested(depth) })),
      fc.integer({ min: 10_000, max: 200_000 }).map((n) => ({ what: `a string of ${n} characters`, value: 'x'.repeat(n) })),
      fc.integer({ min: 1_000, max: 5_000 }).map((n) => ({ what: `an object with ${n} members`, value: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])) })),
      fc.array(fc.jsonValue({ maxDepth: 4 }), { minLength: 50, maxLength: 200 }).map((items) => ({ what: `an array of ${items.length} JSON values`, value: items })),
    );
    await ctx.property(
      'CORE-RPC-16',
      value,
      async (input) => {
        const id = ctx.nextId();
        const what = `ping with ${input.what} in params`;
        const outcome = await sendThenPing(ctx, () => ctx.connection.send({ jsonrpc: '2.0', id, method: 'ping', params: { 'x-conformance-payload': input.value } }));
        pings.record(outcome, what);
        if (outcome.closed) throw new BadInputMismatch(`the connection closed after ${what}`);
        const answers: unknown[] = [...outcome.errors, ...outcome.results].filter((m) => m.id === id || m.id === null);
        // Over Streamable HTTP an HTTP error status (413 for a large body) is the answer; a JSON-RPC error in its body is the same answer, counted once.
        const refusals = outcome.refusals.filter((r) => r.requestIds.includes(id) && !r.carriedMessage);
        for (const refusal of refusals) refused.add(refusal.status);
        answers.push(...refusals.map((r) => `HTTP ${r.status}`));
        if (answers.length !== 1) throw new BadInputMismatch(`${what} got ${answers.length} answers, expected exactly one`, answers);
        return true;
      },
      { numRuns: 12 },
    );
    if (refused.size > 0) ctx.info('CORE-RPC-16', `some large requests were refused at the HTTP level with HTTP ${[...refused].join(', ')} (an answer over Streamable HTTP)`);
    pings.check(ctx);
  },
});

export const cases = [invalidRequests, wrongTypes, paramsNotObject, unknownMethods, hugeAndDeep];
