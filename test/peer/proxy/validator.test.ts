// The session validator's stream rules, fed messages directly: each rule fires on the message that
// breaks it, citing its requirement, and stays quiet on the conforming counterpart.
import { describe, expect, it } from 'vitest';
import { SessionValidator } from '../../../src/peer/proxy/index.js';
import { cborIdIsFloat } from '../../../src/peer/proxy/cbor-id.js';
import { requirements } from '../../../src/protocol/requirements.js';
import { SchemaRegistry } from '../../../src/schema/registry.js';
import type { TransportKind } from '../../../src/transport/connection.js';
import { cborCodec } from '../../../src/wire/index.js';

const registry = SchemaRegistry.load();
const C = 'client-to-server' as const;
const S = 'server-to-client' as const;

function validator(transport: TransportKind = 'http') {
  const v = new SessionValidator({ session: 1, registry, requirements: requirements(), downstream: transport, upstream: transport });
  let seq = 0;
  const feed = (direction: typeof C | typeof S, message: unknown) => v.observe(direction, message, seq++).map((violation) => violation.requirement);
  return { v, feed };
}

const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const initResult = {
  jsonrpc: '2.0',
  id: 0,
  result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 's', version: '1' } },
};
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };

const wtInitialize = { ...initialize, params: { ...initialize.params, transport: { type: 'mcp-flow', version: '0.1', encodings: ['cbor', 'json'] } } };
const wtInitResult = {
  ...initResult,
  result: { ...initResult.result, transport: { type: 'mcp-flow', version: '0.1', encoding: 'cbor', maxMessageSize: 1024, maxConcurrentStreams: 4, datagramsSupported: true } },
};

/** A validator past the initialize exchange (with the binding's transport fields on WebTransport). */
function ready(transport: TransportKind = 'http') {
  const session = validator(transport);
  const wt = transport === 'webtransport';
  if (wt) session.v.noteOfferedEncodings(['cbor', 'json']);
  expect([...session.feed(C, wt ? wtInitialize : initialize), ...session.feed(S, wt ? wtInitResult : initResult), ...session.feed(C, initialized)]).toEqual([]);
  return session;
}

describe('the lifecycle', () => {
  it('initialize must come first (CORE-LIFE-1); requests before the answer warn (CORE-LIFE-6); before initialized (CORE-LIFE-4)', () => {
    expect(validator().feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual(['CORE-LIFE-1']);
    const early = validator();
    early.feed(C, initialize);
    expect(early.feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual(['CORE-LIFE-6']);
    expect(early.feed(C, { jsonrpc: '2.0', id: 2, method: 'ping' })).toEqual([]);
    const beforeInitialized = validator();
    beforeInitialized.feed(C, initialize);
    beforeInitialized.feed(S, initResult);
    expect(beforeInitialized.feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual(['CORE-LIFE-4']);
  });

  it('a server request before notifications/initialized (CORE-LIFE-7); after a failed initialize only initialize (CORE-LIFE-9)', () => {
    const session = validator();
    session.feed(C, { ...initialize, params: { ...initialize.params, capabilities: { roots: {} } } });
    expect(session.feed(S, { jsonrpc: '2.0', id: 0, method: 'roots/list' })).toEqual(['CORE-LIFE-7']);
    const failed = validator();
    failed.feed(C, initialize);
    failed.feed(S, { jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'bad version' } });
    expect(failed.feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual(['CORE-LIFE-9']);
  });
});

describe('requests and responses', () => {
  it('a reused request id (CORE-RPC-4), a second answer (CORE-RPC-16), an answer to nothing (CORE-RPC-5)', () => {
    const { feed } = ready();
    expect(feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual([]);
    expect(feed(S, { jsonrpc: '2.0', id: 1, result: { tools: [] } })).toEqual([]);
    expect(feed(S, { jsonrpc: '2.0', id: 1, result: { tools: [] } })).toEqual(['CORE-RPC-16']);
    expect(feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).toEqual(['CORE-RPC-4']);
    expect(feed(S, { jsonrpc: '2.0', id: 99, result: {} })).toEqual(['CORE-RPC-5']);
  });

  it('an id echoed with another JSON type: CORE-RPC-12 outside WebTransport, CORE-RPC-5 on it', () => {
    const http = ready('http');
    http.feed(C, { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(http.feed(S, { jsonrpc: '2.0', id: '7', result: {} })).toEqual(['CORE-RPC-12']);
    const wt = ready('webtransport');
    wt.feed(C, { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(wt.feed(S, { jsonrpc: '2.0', id: '7', result: {} })).toEqual(['CORE-RPC-5']);
  });

  it('envelope rules: jsonrpc (CORE-RPC-1), positional params (CORE-RPC-2), fractional id (CORE-RPC-3), error message (CORE-RPC-7), result shape (CORE-RPC-14)', () => {
    const { feed } = ready();
    expect(feed(C, { jsonrpc: '2', id: 3, method: 'ping' })).toEqual(['CORE-RPC-1']);
    expect(feed(S, { jsonrpc: '2.0', id: 50, method: 'roots/list', params: [] })).toEqual(['CORE-RPC-2']);
    expect(feed(S, { jsonrpc: '2.0', id: 0.5, method: 'ping' })).toEqual(['CORE-RPC-3']);
    feed(C, { jsonrpc: '2.0', id: 4, method: 'ping' });
    expect(feed(S, { jsonrpc: '2.0', id: 4, error: { code: -32603, message: '' } })).toEqual(['CORE-RPC-7']);
    feed(C, { jsonrpc: '2.0', id: 5, method: 'ping' });
    expect(feed(S, { jsonrpc: '2.0', id: 5, result: [] })).toEqual(['CORE-RPC-14']);
  });

  it('an error with id null right after a notification answers it (CORE-RPC-6)', () => {
    const { feed } = ready();
    feed(C, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    expect(feed(S, { jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } })).toEqual(['CORE-RPC-6']);
  });

  it('requests never answered are reported when the session ends (CORE-RPC-16), cancelled ones are not', () => {
    const { v, feed } = ready();
    feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    feed(C, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    feed(C, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2 } });
    expect(v.finish().map((violation) => [violation.requirement, violation.direction])).toEqual([['CORE-RPC-16', S]]);
  });
});

describe('requests the receiver must refuse', () => {
  it('an undeclared feature served (CORE-CAP-3), an interaction.* request sent the wrong way served (FLOW-CAP-9), a second initialize (CORE-LIFE-8)', () => {
    const { feed } = ready();
    feed(C, { jsonrpc: '2.0', id: 1, method: 'prompts/list' });
    expect(feed(S, { jsonrpc: '2.0', id: 1, result: { prompts: [] } })).toEqual(['CORE-CAP-3']);
    feed(C, { jsonrpc: '2.0', id: 2, method: 'interaction.prompt', params: { sessionId: 'x', prompt: { type: 'text', message: 'x' } } });
    expect(feed(S, { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request' } })).toEqual(['FLOW-CAP-9']);
    feed(C, { jsonrpc: '2.0', id: 3, method: 'interaction.prompt', params: { sessionId: 'x', prompt: { type: 'text', message: 'x' } } });
    expect(feed(S, { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } })).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 5, method: 'interaction.complete', params: { sessionId: 'x', result: { success: true } } });
    expect(feed(S, { jsonrpc: '2.0', id: 5, result: {} })).toEqual(['FLOW-CAP-8']);
    feed(C, { ...initialize, id: 4 });
    expect(feed(S, { ...initResult, id: 4 })).toEqual(['CORE-LIFE-8']);
  });

  it('ping is answered with {} (CORE-LIFE-12), logging/setLevel too (CORE-RPC-14)', () => {
    const { feed } = ready();
    feed(C, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(feed(S, { jsonrpc: '2.0', id: 1, result: { pong: true } })).toEqual(['CORE-LIFE-12']);
    feed(C, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect(feed(S, { jsonrpc: '2.0', id: 2, result: { _meta: {} } })).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 3, method: 'logging/setLevel', params: { level: 'info' } });
    expect(feed(S, { jsonrpc: '2.0', id: 3, result: { level: 'info' } })).toEqual(['CORE-RPC-14']);
  });
});

describe('progress, cancellation and capabilities', () => {
  it('progress needs a token the receiver supplied (CORE-PROG-2), increases (CORE-PROG-3) and stops with the answer (CORE-PROG-4)', () => {
    const { feed } = ready();
    feed(C, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {}, _meta: { progressToken: 't' } } });
    const progress = (value: number, token: unknown = 't') => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: value } });
    expect(feed(S, progress(1))).toEqual([]);
    expect(feed(S, progress(1))).toEqual(['CORE-PROG-3']);
    expect(feed(S, progress(2, 'other'))).toEqual(['CORE-PROG-2']);
    feed(S, { jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect(feed(S, progress(3))).toEqual(['CORE-PROG-4']);
  });

  it("a cancellation names the sender's own request (CORE-CANCEL-1), never initialize (CORE-CANCEL-3); an answer after it warns (CORE-CANCEL-2)", () => {
    const { feed } = ready();
    expect(feed(S, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 42 } })).toEqual(['CORE-CANCEL-1']);
    expect(feed(C, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 0 } })).toEqual(['CORE-CANCEL-3']);
    feed(C, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    feed(C, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(feed(S, { jsonrpc: '2.0', id: 5, result: { content: [] } })).toEqual(['CORE-CANCEL-2']);
  });

  it('capability gates: an undeclared server feature (CORE-CAP-1), client feature (CORE-CAP-2), list_changed (CORE-CAP-5)', () => {
    const { feed } = ready();
    expect(feed(C, { jsonrpc: '2.0', id: 1, method: 'prompts/list' })).toEqual(['CORE-CAP-1']);
    expect(feed(S, { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } })).toEqual(['CORE-CAP-2']);
    expect(feed(S, { jsonrpc: '2.0', method: 'notifications/tools/list_changed' })).toEqual(['CORE-CAP-5']);
  });
});

describe('MCP Flow sessions', () => {
  function started() {
    const session = ready();
    session.feed(C, { jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'registration' } });
    expect(session.feed(S, { jsonrpc: '2.0', id: 1, result: { sessionId: 'abc', state: 'active' } })).toEqual([]);
    return session;
  }
  const prompt = (id: number, extra: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id,
    method: 'interaction.prompt',
    params: { sessionId: 'abc', prompt: { type: 'text', message: 'Name?' }, ...extra },
  });
  const complete = (id: number) => ({ jsonrpc: '2.0', id, method: 'interaction.complete', params: { sessionId: 'abc', result: { success: true } } });

  it('a first prompt seen before the start result that names its session is judged once the result arrives', () => {
    const { v, feed } = ready();
    feed(C, { jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'registration' } });
    expect(feed(S, prompt(10))).toEqual([]);
    expect(feed(S, { jsonrpc: '2.0', id: 1, result: { sessionId: 'abc', state: 'active' } })).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 10, result: { acknowledged: true } });
    expect(v.finish()).toEqual([]);
    const orphan = ready();
    orphan.feed(C, { jsonrpc: '2.0', id: 1, method: 'interaction.start', params: { toolName: 'registration' } });
    orphan.feed(S, { ...prompt(10), params: { ...prompt(10).params, sessionId: 'elsewhere' } });
    orphan.feed(S, { jsonrpc: '2.0', id: 1, result: { sessionId: 'abc', state: 'active' } });
    orphan.feed(C, { jsonrpc: '2.0', id: 10, result: { acknowledged: true } });
    // 'elsewhere' is a session of another connection (FLOW-SEC-4): followed, not a violation; 'abc' never got its first prompt.
    expect(orphan.v.finish().map((violation) => violation.requirement)).toEqual(['FLOW-START-8']);
  });

  it('interaction.* directions (FLOW-CAP-8); a session started on another connection is followed, not refused (FLOW-SEC-4)', () => {
    const { feed } = started();
    expect(feed(C, { jsonrpc: '2.0', id: 2, method: 'interaction.prompt', params: { sessionId: 'abc', prompt: { type: 'text', message: 'x' } } })).toEqual(['FLOW-CAP-8']);
    const elsewhere = (id: number, method: string, params: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, params: { sessionId: 'elsewhere', ...params } });
    expect(feed(S, elsewhere(10, 'interaction.prompt', { prompt: { type: 'text', message: 'Name?' } }))).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 10, result: { acknowledged: true } });
    expect(feed(S, elsewhere(11, 'interaction.complete', { result: { success: true } }))).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 11, result: { success: true } });
    // From here on the session is known: a prompt after its completion breaks FLOW-SM-10.
    expect(feed(S, elsewhere(12, 'interaction.prompt', { prompt: { type: 'text', message: 'More?' } }))).toEqual(['FLOW-SM-10']);
  });

  it('a second complete (FLOW-SM-6), a prompt after it (FLOW-SM-10), a reused session id (FLOW-START-7)', () => {
    const { feed } = started();
    expect(feed(S, prompt(10))).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 10, result: { acknowledged: true } });
    feed(C, { jsonrpc: '2.0', id: 2, method: 'interaction.respond', params: { sessionId: 'abc', response: { value: 'Eve' } } });
    expect(feed(S, { jsonrpc: '2.0', id: 2, result: { accepted: true, validation: { valid: true } } })).toEqual([]);
    expect(feed(S, complete(11))).toEqual([]);
    expect(feed(S, complete(12))).toEqual(['FLOW-SM-6']);
    expect(feed(S, prompt(13))).toEqual(['FLOW-SM-10']);
    feed(C, { jsonrpc: '2.0', id: 3, method: 'interaction.start', params: { toolName: 'registration' } });
    expect(feed(S, { jsonrpc: '2.0', id: 3, result: { sessionId: 'abc', state: 'active' } })).toEqual(['FLOW-START-7']);
  });

  it('a getState that contradicts the observed states (FLOW-SM-3 after a terminal state)', () => {
    const { feed } = started();
    feed(C, { jsonrpc: '2.0', id: 2, method: 'interaction.cancel', params: { sessionId: 'abc' } });
    expect(feed(S, { jsonrpc: '2.0', id: 2, result: { cancelled: true } })).toEqual([]);
    feed(C, { jsonrpc: '2.0', id: 3, method: 'interaction.getState', params: { sessionId: 'abc' } });
    const state = feed(S, { jsonrpc: '2.0', id: 3, result: { sessionId: 'abc', state: 'waiting_user', metadata: { toolName: 'registration', createdAt: 1, lastActivityAt: 2 }, history: [] } });
    expect(state).toContain('FLOW-SM-3');
  });

  it('prompt rules the schema cannot state: repeated choice values, min > max, progress beyond total (FLOW-PROMPT-15, recommended)', () => {
    const { feed } = started();
    const choices = [
      { value: 'a', label: 'A' },
      { value: 'a', label: 'Also A' },
    ];
    expect(feed(S, prompt(10, { prompt: { type: 'choice', message: 'Pick', choices } }))).toContain('FLOW-PROMPT-15');
    expect(feed(S, prompt(11, { prompt: { type: 'number', message: 'Age', validation: { min: 9, max: 1 } } }))).toContain('FLOW-PROMPT-15');
    expect(feed(S, prompt(12, { progress: { current: 5, total: 2 } }))).toContain('FLOW-PROMPT-15');
  });

  it('a session started without initialPrompt that never got a prompt (FLOW-START-8, judged at the end)', () => {
    const { v } = started();
    expect(v.finish().map((violation) => violation.requirement)).toEqual(['FLOW-START-8']);
  });
});

describe('WebTransport', () => {
  it('a request cancelled with $/cancel is answered with an error, not a result (WT-CANCEL-2)', () => {
    const { feed } = ready('webtransport');
    feed(C, { jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    expect(feed(C, { jsonrpc: '2.0', method: '$/cancel', params: { requestId: 5 } })).toEqual([]);
    expect(feed(S, { jsonrpc: '2.0', id: 5, result: { content: [] } })).toEqual(['WT-CANCEL-2']);
    feed(C, { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    feed(C, { jsonrpc: '2.0', method: '$/cancel', params: { requestId: 6 } });
    expect(feed(S, { jsonrpc: '2.0', id: 6, error: { code: -32800, message: 'Request cancelled' } })).toEqual([]);
    expect(feed(C, { jsonrpc: '2.0', method: '$/cancel', params: { requestId: 77 } })).toEqual(['WT-CANCEL-6']);
  });

  it('request ids are integers in 0..2^32-1 (WT-ID-1)', () => {
    const { feed } = ready('webtransport');
    expect(feed(S, { jsonrpc: '2.0', id: 's-1', method: 'ping' })).toEqual(['WT-ID-1']);
  });

  it('the selected encoding: offered (WT-ENC-9), json when nothing was offered (WT-ENC-4), never after a preferred json (WT-ENC-6)', () => {
    const result = (encoding: string) => ({
      ...initResult,
      result: { ...initResult.result, transport: { type: 'mcp-flow', version: '0.1', encoding, maxMessageSize: 1024, maxConcurrentStreams: 4, datagramsSupported: true } },
    });
    const cases: [string[] | undefined, string, string[]][] = [
      [['json'], 'cbor', ['WT-ENC-9']],
      [undefined, 'cbor', ['WT-ENC-4']],
      [['json', 'cbor'], 'cbor', ['WT-ENC-6']],
      [['cbor', 'json'], 'json', []],
      [['cbor', 'json'], 'cbor', []],
    ];
    for (const [offered, selected, expected] of cases) {
      const { v, feed } = validator('webtransport');
      feed(C, { ...initialize, params: { ...initialize.params, transport: { type: 'mcp-flow', version: '0.1', ...(offered ? { encodings: offered } : {}) } } });
      v.noteOfferedEncodings(offered);
      expect(feed(S, result(selected)), `${String(offered)} -> ${selected}`).toEqual(expected);
    }
  });

  it('a CBOR body whose integral id is a float (WT-ENC-13)', () => {
    const asInteger = cborCodec.encode({ jsonrpc: '2.0', id: 7, result: {} });
    const asFloat = Uint8Array.from(asInteger);
    // Rewrite the id's value (the CBOR integer 7, 0x07, right after the key "id") as a float64.
    const at = Buffer.from(asFloat).indexOf(Buffer.from([0x62, 0x69, 0x64])) + 3;
    const floatBody = new Uint8Array([...asFloat.subarray(0, at), 0xfb, ...new Uint8Array(new Float64Array([7]).buffer).reverse(), ...asFloat.subarray(at + 1)]);
    expect(cborIdIsFloat(asInteger)).toBe(false);
    expect(cborIdIsFloat(floatBody)).toBe(true);
    const { v, feed } = ready('webtransport');
    feed(C, { jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(v.observe(S, { jsonrpc: '2.0', id: 7, result: {} }, 99, Date.now(), { encoding: 'cbor', body: floatBody }).map((x) => x.requirement)).toEqual(['WT-ENC-13']);
  });
});
