// Connection faults as the requirement their sender broke, and the proxy's findings as a RunResult
// (one case per requirement judged: PASS, FAIL for a MUST, WARN for a SHOULD, with the excerpt).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { faultRequirement } from '../../src/judge/index.js';
import { ProxyRecord, SessionValidator, type Violation } from '../../src/peer/proxy/index.js';
import { proxyRunResult } from '../../src/report/index.js';
import { requirements } from '../../src/protocol/requirements.js';
import { SchemaRegistry } from '../../src/schema/registry.js';

describe('faultRequirement', () => {
  it.each([
    [{ code: 'ENCODING_MISMATCH' }, 'server', true, 'webtransport', 'WT-ENC-2'],
    [{ code: 'ENCODING_MISMATCH' }, 'server', false, 'webtransport', 'WT-ENC-3'],
    [{ code: 'ENCODING_MISMATCH' }, 'client', true, 'webtransport', 'WT-ENC-1'],
    [{ code: 'ENCODING_MISMATCH' }, 'client', false, 'webtransport', 'WT-ENC-12'],
    [{ code: 'INVALID_JSON' }, 'server', false, 'webtransport', 'WT-FRAME-1'],
    [{ code: 'INVALID_JSON' }, 'server', false, 'stdio', 'CORE-RPC-1'],
    [{ code: 'DATAGRAM_RESERVED_CHANNEL' }, 'server', false, 'webtransport', 'WT-DGRAM-2'],
    [{ code: 'FRAME_TOO_LARGE' }, 'client', false, 'webtransport', 'WT-FRAME-9'],
    [{ code: 'HTTP_EXCHANGE_FAILED' }, 'server', false, 'http', undefined],
    [{ code: 'SOMETHING_ELSE' }, 'server', false, 'webtransport', undefined],
  ] as const)('%j from the %s (before ready: %s, %s) -> %s', (fault, sender, beforeReady, transport, expected) => {
    expect(faultRequirement(fault, sender, beforeReady, transport)).toBe(expected);
  });

  it('the validator reports each new fault once, against the side that sent it', () => {
    const v = new SessionValidator({ session: 3, registry: SchemaRegistry.load(), requirements: requirements(), downstream: 'stdio', upstream: 'stdio' });
    const fault = { code: 'INVALID_JSON', message: 'line 1 is not JSON', channel: { kind: 'stdio' as const, fd: 'stdout' as const }, at: 1 };
    expect(v.observeFaults('upstream', [fault], 7).map((x) => [x.requirement, x.direction, x.session, x.seq])).toEqual([['CORE-RPC-1', 'server-to-client', 3, 7]]);
    expect(v.observeFaults('upstream', [fault], 8)).toEqual([]);
  });
});

describe('proxyRunResult', () => {
  const record = new ProxyRecord();
  const seq = record.message(1, 'server-to-client', { message: { jsonrpc: '2.0', id: 0, result: {} }, channel: { kind: 'control' }, at: 1 });
  const violation = (requirement: string, level: Violation['level']): Violation => ({
    session: 1,
    seq,
    at: 1,
    direction: 'server-to-client',
    subject: 'response 0',
    requirement,
    level,
    message: 'broken',
  });
  const run = (violations: Violation[]) =>
    proxyRunResult({
      checked: new Set(['CORE-LIFE-3', 'CORE-LIFE-7', 'CORE-RPC-1']),
      violations,
      record,
      requirements: requirements(),
      description: 'test',
      transport: 'http -> http',
      startedAt: 0,
      rerun: 'mcp-flow-conformance proxy ...',
    });

  it('one passing case per requirement judged, in catalog order, exit 0', () => {
    const result = run([]);
    expect(result.cases.map((c) => c.id)).toEqual(['proxy/CORE-RPC-1', 'proxy/CORE-LIFE-3', 'proxy/CORE-LIFE-7']);
    expect(result.cases.every((c) => c.verdict === 'PASS')).toBe(true);
    expect(result.exitCode).toBe(0);
  });

  it('a MUST violated fails its case with the excerpt (exit 1); a SHOULD only warns (exit 0)', () => {
    const failing = run([violation('CORE-LIFE-3', 'MUST')]);
    const lifecycle = failing.cases.find((c) => c.id === 'proxy/CORE-LIFE-3')!;
    expect(lifecycle.verdict).toBe('FAIL');
    expect(lifecycle.checks).toHaveLength(1);
    expect(lifecycle.transcript?.map((entry) => entry.seq)).toContain(seq);
    expect(failing.exitCode).toBe(1);
    const warning = run([violation('CORE-LIFE-7', 'SHOULD')]);
    expect(warning.cases.find((c) => c.id === 'proxy/CORE-LIFE-7')?.verdict).toBe('WARN');
    expect(warning.exitCode).toBe(0);
    expect(warning.summary.WARN).toBe(1);
  });

  it('the report holds the messages of the record to the message limit (the record itself keeps them whole)', () => {
    const large = { jsonrpc: '2.0', id: 9, result: { text: 'x'.repeat(200_000) } };
    const body = new TextEncoder().encode(JSON.stringify(large));
    const at = record.message(1, 'server-to-client', { message: large, channel: { kind: 'control' }, at: 2, body });
    const result = proxyRunResult({
      checked: new Set(['CORE-LIFE-3']),
      violations: [{ ...violation('CORE-LIFE-3', 'MUST'), seq: at, actual: large }],
      record,
      requirements: requirements(),
      description: 'test',
      transport: 'http -> http',
      startedAt: 0,
      rerun: 'mcp-flow-conformance proxy ...',
    });
    const excerpt = result.cases[0]!.transcript!.find((entry) => entry.seq === at)!;
    expect(excerpt).toMatchObject({ summary: 'response id 9', sha256: createHash('sha256').update(body).digest('hex'), truncated: true, hex: expect.any(String) });
    expect(excerpt.decoded).toBeUndefined();
    expect(excerpt.hex!.length).toBe(8192);
    expect(JSON.stringify(result.cases[0]!.checks[0]!.actual).length).toBeLessThan(65536);
    expect(record.transcript.entries().find((entry) => entry.seq === at)!.decoded).toBe(large);
  });
});
