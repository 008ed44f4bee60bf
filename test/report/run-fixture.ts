// Hand-built RunResults for the reporter tests: one case per verdict, a hostile target, and BigInt
// and byte values where a decoded CBOR message could carry them.
import { VERDICTS, countVerdicts, type CaseResult, type RunResult, type Verdict } from '../../src/harness/result.js';
import type { TranscriptEntry } from '../../src/transport/transcript.js';

export const HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>&amp;]]>';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

export function failingTranscript(): TranscriptEntry[] {
  return [
    { seq: 0, at: T0, direction: 'local', channel: { kind: 'session' }, byteLength: 0, note: 'session open' },
    {
      seq: 1,
      at: T0 + 1,
      direction: 'sent',
      channel: { kind: 'control' },
      byteLength: 58,
      hex: '7b226a736f6e727063223a22322e30227d',
      decoded: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
    },
    {
      seq: 2,
      at: T0 + 2,
      direction: 'received',
      channel: { kind: 'control' },
      byteLength: 5,
      hex: '7b22696422',
      error: { code: 'INVALID_JSON', message: 'Unexpected end of JSON input' },
    },
    {
      seq: 3,
      at: T0 + 3,
      direction: 'received',
      channel: { kind: 'stream', streamId: 4, header: { requestId: 7, streamTag: 1 } },
      byteLength: 9000,
      hex: 'a2'.repeat(4096),
      truncated: true,
      decoded: { id: 7n ** 30n, result: { text: HOSTILE } },
    },
  ];
}

function makeCase(verdict: Verdict, index: number, overrides: Partial<CaseResult> = {}): CaseResult {
  const suite = index % 2 === 0 ? 'negotiation' : 'flow';
  const id = `${suite}/${verdict.toLowerCase().replaceAll('_', '-')}-case`;
  const base: CaseResult = {
    id,
    suite,
    title: `A ${verdict} case`,
    requirements: ['WT-ENC-5', 'WT-FRAME-4'],
    level: verdict === 'WARN' ? 'SHOULD' : 'MUST',
    verdict,
    checks: [{ requirement: 'WT-ENC-5', level: 'MUST', verdict: verdict === 'PASS' ? 'PASS' : verdict, message: `check for ${verdict}` }],
    startedAt: T0 + index * 10,
    durationMs: 12 + index,
    timeLimitMs: 5000,
    rerun: `npx mcp-flow-conformance run --case ${id}`,
  };
  if (verdict === 'FAIL') {
    base.reason = 'initialize answered in CBOR';
    base.requirementText = 'The initialize request and its result MUST be JSON.';
    base.checks = [
      { requirement: 'WT-ENC-1', level: 'MUST', verdict: 'PASS', message: 'a response arrived' },
      { requirement: 'WT-ENC-5', level: 'MUST', verdict: 'FAIL', message: 'the result is JSON', expected: { encoding: 'json' }, actual: { encoding: 'cbor', firstByte: 0xa2 } },
    ];
    base.transcript = failingTranscript();
    base.seed = 1234;
    base.path = '0:1:2';
  }
  if (verdict === 'TIMEOUT') base.reason = 'no answer to tools/list within 5000 ms';
  if (verdict === 'ERROR') base.reason = 'harness bug: TypeError: x is undefined';
  if (verdict === 'SKIPPED') base.reason = 'excluded by --exclude flow/*';
  if (verdict === 'NOT_APPLICABLE') base.reason = 'the server does not declare the flow capability';
  if (verdict === 'INFO') base.reason = 'target chose reading B of FLOW-SM-3';
  if (verdict === 'WARN') {
    base.checks = [{ requirement: 'FLOW-RATE-2', level: 'SHOULD', verdict: 'WARN', message: 'retryAfter is given', expected: 'a number', actual: undefined }];
    base.requirementText = 'The server SHOULD say when to retry.';
  }
  return { ...base, ...overrides };
}

/** Every verdict once (FAIL with a transcript), plus options as given. */
export function sampleRun(options: Record<string, unknown> = {}, extra: CaseResult[] = []): RunResult {
  const cases = [...VERDICTS.map((verdict, index) => makeCase(verdict, index)), ...extra];
  const summary = countVerdicts(cases);
  return {
    tool: { name: 'mcp-flow-conformance', version: '0.1.0' },
    target: {
      description: `https://127.0.0.1:4433/mcp ${HOSTILE}`,
      transport: 'webtransport',
      serverInfo: { name: HOSTILE, version: '1.0.0' },
      protocolVersion: '2025-06-18',
      capabilities: { tools: {}, experimental: { big: 2n ** 70n, bytes: new Uint8Array([0, 1, 255]) } },
    },
    options: { strict: false, workers: 2, ...options },
    startedAt: T0,
    durationMs: 1234,
    cases,
    summary,
    exitCode: 1,
  };
}

export { makeCase };
