// Every message is validated against the schemas (a target's violation is a failed check naming
// the message and the JSON pointer in a case that declares the requirement it breaks; the
// harness's own is ERROR unless declared), and fast-check properties inside a case record the
// seed and path the rerun command replays.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defineCase, type ConformanceCase, type Target } from '../../src/harness/case.js';
import { CaseRegistry } from '../../src/harness/registry.js';
import type { CaseResult } from '../../src/harness/result.js';
import { runConformance, type RunOptions } from '../../src/harness/runner.js';
import { judgeTranscript } from '../../src/judge/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { SchemaRegistry } from '../../src/schema/registry.js';
import { Transcript } from '../../src/transport/transcript.js';
import { mockServerTarget, scriptedTarget, tinyServer } from './targets.js';

type Msg = Record<string, unknown>;
const INIT = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'harness-test', version: '1' } };

async function runOne(c: ConformanceCase, target: Target, options: Partial<RunOptions> = {}): Promise<CaseResult> {
  const registry = new CaseRegistry();
  registry.register(c);
  const result = await runConformance({ registry, target, graceMs: 500, ...options });
  return result.cases[0] as CaseResult;
}

const initializeCase = defineCase({
  id: 'schema/initialize',
  suite: 'schema',
  title: 'initialize is answered with the request id',
  requirements: ['CORE-RPC-5', 'CORE-LIFE-3'],
  async run(ctx) {
    await ctx.connection.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: INIT });
    const answer = await ctx.expectAnswer('CORE-RPC-5', 'init');
    ctx.check('CORE-RPC-5', answer?.id === 'init', { message: 'the response echoes the id', expected: 'init', actual: answer?.id });
  },
});

describe('schema validation of every message', () => {
  it('a received message breaking its schema is a failed check naming the message and the JSON pointer', async () => {
    const target = scriptedTarget(tinyServer({ protocolVersion: 20250618, capabilities: {}, serverInfo: { name: 'tiny', version: '1' } }));
    const result = await runOne(initializeCase, target);
    expect(result.verdict).toBe('FAIL');
    const violation = result.checks.find((c) => c.message.includes('breaking schema'));
    expect(violation).toBeDefined();
    expect(violation!.message).toMatch(/^the target sent response "init" \(transcript #\d+\) breaking schema core\/2025-06-18\/initialize\.result\.schema\.json at \/result\/protocolVersion/);
    expect(violation!.actual).toMatchObject({ pointer: '/result/protocolVersion', keyword: 'type' });
    expect(violation!.verdict).toBe('FAIL');
    expect(violation!.requirement).toBe('CORE-LIFE-3');
    expect(result.requirementText).toBeDefined();
    // The case's own check passed; the schema check alone failed it.
    expect(result.checks.find((c) => c.requirement === 'CORE-RPC-5')?.verdict).toBe('PASS');
  });

  it('the transcript excerpt of a schema failure holds the violating message even after later traffic', async () => {
    const chatty = defineCase({
      ...initializeCase,
      id: 'schema/chatty',
      async run(ctx) {
        await initializeCase.run(ctx);
        for (let n = 0; n < 30; n++) await ctx.connection.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: n } });
      },
    });
    const target = scriptedTarget(tinyServer({ protocolVersion: '2025-06-18', capabilities: 'none', serverInfo: { name: 'tiny', version: '1' } }));
    const result = await runOne(chatty, target, { excerptEntries: 6 });
    expect(result.verdict).toBe('FAIL');
    expect(result.transcript).toHaveLength(6);
    expect(result.transcript!.some((e) => e.direction === 'received' && (e.decoded as Msg).id === 'init')).toBe(true);
  });

  it('a conforming exchange adds no schema check', async () => {
    const result = await runOne(initializeCase, mockServerTarget());
    expect(result.verdict).toBe('PASS');
    expect(result.checks.map((c) => c.message)).toEqual(['the response echoes the id']);
  });

  it('a message the harness sends that breaks a schema is ERROR, unless the case declares sendsInvalid', async () => {
    const sendsBad = defineCase({
      id: 'schema/bad-initialize',
      suite: 'schema',
      title: 'initialize with a numeric protocol version is refused',
      requirements: ['CORE-RPC-11'],
      async run(ctx) {
        await ctx.connection.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INIT, protocolVersion: 5 } });
        const answer = await ctx.expectAnswer('CORE-RPC-11', 1);
        ctx.check('CORE-RPC-11', answer !== undefined && 'error' in answer, { message: 'answered with an error', actual: answer });
      },
    });
    const undeclared = await runOne(sendsBad, mockServerTarget());
    expect(undeclared.verdict).toBe('ERROR');
    expect(undeclared.reason).toMatch(/the harness sent initialize .* at \/params\/protocolVersion.*sendsInvalid/);
    const declared = await runOne({ ...sendsBad, sendsInvalid: true }, mockServerTarget());
    expect(declared.verdict).toBe('PASS');
  });

  it('responses are matched to their requests and the negotiated version picks the schemas', () => {
    const registry = SchemaRegistry.load();
    const transcript = new Transcript();
    const sent = (decoded: unknown) => transcript.record({ direction: 'sent', channel: { kind: 'control' }, decoded });
    const received = (decoded: unknown) => transcript.record({ direction: 'received', channel: { kind: 'control' }, decoded });
    sent({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INIT, protocolVersion: '2025-03-26' } });
    received({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } });
    sent({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    received({ jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'echo' }] } });
    const violations = judgeTranscript(registry, requirements(), transcript.entries());
    expect(violations).toHaveLength(1);
    expect(violations[0]).toMatchObject({ kind: 'violation', direction: 'received', seq: 3, pointer: '/result/tools/0', requirement: 'CORE-TOOLS-1' });
    expect(violations[0]!.schema).toMatch(/^core\/2025-03-26\/tools-list\.result\.schema\.json$/);
    expect(judgeTranscript(registry, requirements(), transcript.entries(), { directions: ['sent'] })).toEqual([]);
  });

  it('on WebTransport a ref/stream content item is judged by the binding schema, the rest by the core schema', () => {
    const registry = SchemaRegistry.load();
    const transcript = new Transcript();
    const sent = (decoded: unknown) => transcript.record({ direction: 'sent', channel: { kind: 'control' }, decoded });
    const received = (decoded: unknown) => transcript.record({ direction: 'received', channel: { kind: 'control' }, decoded });
    sent({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { ...INIT, transport: { type: 'mcp-flow', version: '0.1', encodings: ['json'] } } });
    const transport = { type: 'mcp-flow', version: '0.1', encoding: 'json', maxMessageSize: 65536, maxConcurrentStreams: 4, datagramsSupported: false };
    received({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' }, transport } });
    sent({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'download', arguments: {} } });
    received({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'file follows' }, { type: 'ref/stream', streamTag: 1, mimeType: 'text/plain' }] } });
    sent({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'download', arguments: {} } });
    received({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'ref/stream', streamTag: -1 }] } });
    sent({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: {} } });
    received({ jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text' }] } });
    const onWt = judgeTranscript(registry, requirements(), transcript.entries(), { webTransport: true });
    expect(onWt.map((v) => [v.seq, v.schema, v.pointer])).toEqual([
      [5, 'binding/ref-stream.payload.schema.json', '/result/content/0/streamTag'],
      [7, expect.stringMatching(/^core\/2025-06-18\/tools-call\.result\.schema\.json$/), '/result/content/0'],
    ]);
    expect(onWt[0]!.requirement).toBe('WT-EXEC-4');
    // Elsewhere ref/stream is no content item at all, and the binding's transport members are not judged.
    const elsewhere = judgeTranscript(registry, requirements(), transcript.entries());
    expect(elsewhere.map((v) => v.seq)).toEqual([3, 5, 7]);
    // On WebTransport the binding's initialize extensions are judged beside the core schemas.
    sent({ jsonrpc: '2.0', id: 5, method: 'initialize', params: INIT });
    received({ jsonrpc: '2.0', id: 5, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } } });
    const bare = judgeTranscript(registry, requirements(), transcript.entries(), { webTransport: true }).filter((v) => v.seq >= 8);
    // (The harness's own initialize may leave the transport member out on purpose: not judged.)
    expect(bare.map((v) => [v.seq, v.schema, v.requirement, v.direction])).toEqual([[9, 'binding/initialize.result.schema.json', 'WT-INIT-3', 'received']]);
  });
});

describe('fast-check properties inside a case', () => {
  const propertyCase = defineCase({
    id: 'property/small-numbers',
    suite: 'property',
    title: 'every generated number is below 500',
    requirements: ['CORE-RPC-3'],
    async run(ctx) {
      await ctx.property('CORE-RPC-3', fc.integer({ min: 0, max: 1000 }), async (n) => n < 500, { numRuns: 200 });
    },
  });

  it('a counterexample fails the requirement and the rerun command carries seed and path that replay it', async () => {
    const first = await runOne(propertyCase, mockServerTarget(), { seed: 1234 });
    expect(first.verdict).toBe('FAIL');
    expect(first.seed).toBe(1234);
    expect(first.path).toMatch(/^\d+(:\d+)*$/);
    expect(first.checks[0]).toMatchObject({ requirement: 'CORE-RPC-3', verdict: 'FAIL', actual: 500 });
    expect(first.rerun).toBe(`mcp-flow-conformance server --url memory://test --case property/small-numbers --seed 1234 --path ${first.path}`);

    const replay = await runOne(propertyCase, mockServerTarget(), { seed: first.seed!, path: first.path! });
    expect(replay.verdict).toBe('FAIL');
    expect(replay.checks[0]!.actual).toBe(500);
  });

  it('a property that holds passes and still records its seed', async () => {
    const holds = defineCase({ ...propertyCase, id: 'property/holds', async run(ctx) {
      await ctx.property('CORE-RPC-3', fc.integer({ min: 0, max: 10 }), async (n) => n <= 10);
    } });
    const result = await runOne(holds, mockServerTarget(), { seed: 99 });
    expect(result).toMatchObject({ verdict: 'PASS', seed: 99 });
    expect(result.path).toBeUndefined();
    expect(result.rerun).toMatch(/--seed 99$/);
  });
});
