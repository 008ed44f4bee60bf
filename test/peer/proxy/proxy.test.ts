// The official SDK Client through the validating proxy to the mock server: a clean session (on
// each transport, and across transports) shows zero violations; each of a set of mock-server
// faults a passive observer can see is reported citing that fault's requirement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatViolation, startProxy, type RunningProxy } from '../../../src/peer/proxy/index.js';
import { proxyRunResult } from '../../../src/report/index.js';
import { mockServerFaultCatalog, startMockServer, type RunningMockServer } from '../../../src/peer/server/index.js';
import { requirements } from '../../../src/protocol/requirements.js';
import { cliArgs } from '../../support/cli.js';
import { runSdkSession, startPair, upstreamOf } from './support.js';

const TEST_DEADLINE_MS = 120_000;

function describeViolations(proxy: RunningProxy): string {
  return proxy.violations().map(formatViolation).join('\n') || '(none)';
}

describe.each(['http', 'wt'] as const)('a clean SDK session through the proxy over %s', (transport) => {
  it(
    'forwards initialize, lists, a tool call, a resource read, a prompt get and a wizard with zero violations',
    async () => {
      const pair = await startPair(transport);
      try {
        const outcome = await runSdkSession(transport, pair.proxy.url, pair.proxy.certificateHash, { flow: true });
        expect(outcome.failures).toEqual([]);
        await pair.proxy.close();
        expect(describeViolations(pair.proxy)).toBe('(none)');
        // The session was judged, not waved through: schemas and stream rules of every kind applied.
        const checked = pair.proxy.checked();
        for (const id of ['CORE-LIFE-3', 'CORE-TOOLS-3', 'CORE-RES-1', 'CORE-PROMPTS-2', 'FLOW-START-2', 'FLOW-SM-7', 'CORE-RPC-16', 'CORE-LIFE-1']) {
          expect(checked.has(id), id).toBe(true);
        }
        if (transport === 'wt') expect(checked.has('WT-INIT-3')).toBe(true);
        const messages = pair.proxy.record.transcript.entries().filter((entry) => entry.direction !== 'local');
        expect(messages.filter((entry) => entry.direction === 'sent').length).toBeGreaterThan(10);
        expect(messages.filter((entry) => entry.direction === 'received').length).toBeGreaterThan(10);
        const run = proxyRunResult({
          checked,
          violations: pair.proxy.violations(),
          record: pair.proxy.record,
          requirements: requirements(),
          description: 'test',
          transport,
          startedAt: Date.now(),
          rerun: 'proxy',
        });
        expect(run.exitCode).toBe(0);
        expect(run.summary.FAIL).toBe(0);
        expect(run.summary.PASS).toBe(run.summary.total);
      } finally {
        await pair.close();
      }
    },
    TEST_DEADLINE_MS,
  );
});

describe('across transports', () => {
  it.each([
    ['http', 'wt'],
    ['wt', 'http'],
  ] as const)(
    'a %s client to a %s server: the proxy bridges the binding and sees zero violations',
    async (client, server) => {
      const pair = await startPair(server, {}, client);
      try {
        const outcome = await runSdkSession(client, pair.proxy.url, pair.proxy.certificateHash, { flow: true });
        expect(outcome.failures).toEqual([]);
        await pair.proxy.close();
        expect(describeViolations(pair.proxy)).toBe('(none)');
      } finally {
        await pair.close();
      }
    },
    TEST_DEADLINE_MS,
  );

  it(
    'a Streamable HTTP client to a stdio server (the mock-server command spawned per session)',
    async () => {
      const command = [process.execPath, ...cliArgs('mock-server', '--transport', 'stdio')].map((word) => JSON.stringify(word)).join(' ');
      const proxy = await startProxy({ listen: { transport: 'http', port: 0 }, upstream: { transport: 'stdio', command } });
      try {
        const outcome = await runSdkSession('http', proxy.url, undefined, { flow: true });
        expect(outcome.failures).toEqual([]);
        await proxy.close();
        expect(describeViolations(proxy)).toBe('(none)');
        expect(proxy.sessions()[0]?.upstream.kind).toBe('stdio');
      } finally {
        await proxy.close();
      }
    },
    TEST_DEADLINE_MS,
  );
});

/**
 * Faults of the core, MCP Flow and WebTransport layers that show in the message stream of the
 * SDK session above: the transport they run on, whether the session runs a wizard, and the
 * encodings the SDK transport offers (for the negotiation faults).
 */
const FAULTS: { fault: string; transport: 'http' | 'wt'; flow?: boolean; encodings?: string[] }[] = [
  { fault: 'initialize-missing-server-info', transport: 'http' },
  { fault: 'duplicate-response', transport: 'http' },
  { fault: 'response-jsonrpc-version-wrong', transport: 'http' },
  { fault: 'capability-as-boolean', transport: 'http' },
  { fault: 'tool-content-without-type', transport: 'http' },
  { fault: 'resource-without-name', transport: 'http' },
  { fault: 'prompt-message-role-system', transport: 'http' },
  { fault: 'server-request-id-reused', transport: 'wt', flow: true },
  { fault: 'start-without-state', transport: 'http', flow: true },
  { fault: 'prompt-as-notification', transport: 'http', flow: true },
  { fault: 'complete-without-success', transport: 'http', flow: true },
  { fault: 'complete-twice', transport: 'http', flow: true },
  { fault: 'duplicate-choice-values', transport: 'http', flow: true },
  { fault: 'inverted-bounds', transport: 'http', flow: true },
  { fault: 'progress-beyond-total', transport: 'http', flow: true },
  { fault: 'wt-transport-missing', transport: 'wt' },
  { fault: 'advertise-missing-capabilities', transport: 'wt' },
  { fault: 'initialize-result-in-cbor', transport: 'wt' },
  { fault: 'reply-json-after-cbor', transport: 'wt' },
  { fault: 'cbor-id-as-float', transport: 'wt' },
  { fault: 'wrong-frame-length', transport: 'wt' },
  { fault: 'string-ids-for-server-requests', transport: 'wt', flow: true },
  { fault: 'ignore-encoding-preference', transport: 'wt', encodings: ['json', 'cbor'] },
  { fault: 'encoding-not-offered-selected', transport: 'wt', encodings: ['json'] },
];

describe('mock-server faults seen through the proxy', () => {
  const catalog = new Map(mockServerFaultCatalog().map((entry) => [entry.name, entry]));

  it('covers at least eight faults, from the core, flow and webtransport layers', () => {
    const layers = new Set(FAULTS.map(({ fault }) => catalog.get(fault)?.layer));
    expect(FAULTS.length).toBeGreaterThanOrEqual(8);
    expect([...layers].sort()).toEqual(['core', 'flow', 'webtransport']);
  });

  // Each fault has a server and proxy of its own; a few wait out an SDK deadline: they run at once.
  it.concurrent.for(FAULTS)(
    '$fault over $transport is reported citing its requirement',
    { timeout: TEST_DEADLINE_MS },
    async ({ fault, transport, flow, encodings }, { expect }) => {
      const entry = catalog.get(fault);
      expect(entry, fault).toBeDefined();
      const pair = await startPair(transport, { faults: [fault] });
      try {
        // A faulty server may break the SDK's own checks: the session goes as far as it can.
        const outcome = await runSdkSession(transport, pair.proxy.url, pair.proxy.certificateHash, { stopOnFailure: true, ...(flow ? { flow } : {}), ...(encodings ? { encodings } : {}) });
        await pair.proxy.close();
        const cited = pair.proxy.violations().map((violation) => violation.requirement);
        expect(cited, `${describeViolations(pair.proxy)}\nSDK steps that failed: ${outcome.failures.join('; ') || '(none)'}`).toContain(entry!.requirement);
        const run = proxyRunResult({
          checked: pair.proxy.checked(),
          violations: pair.proxy.violations(),
          record: pair.proxy.record,
          requirements: requirements(),
          description: 'test',
          transport,
          startedAt: Date.now(),
          rerun: 'proxy',
        });
        const failed = run.cases.find((c) => c.requirements[0] === entry!.requirement);
        expect(failed?.verdict).toBe(requirements().get(entry!.requirement).level === 'MUST' ? 'FAIL' : 'WARN');
        expect(failed?.transcript?.length).toBeGreaterThan(0);
      } finally {
        await pair.close();
      }
    },
  );
});

describe('sessions', () => {
  let server: RunningMockServer;
  let proxy: RunningProxy;

  beforeAll(async () => {
    server = await startMockServer({ transport: 'http', port: 0, fastworkflow: false });
    proxy = await startProxy({ listen: { transport: 'http', port: 0 }, upstream: upstreamOf(server) });
  }, TEST_DEADLINE_MS);

  afterAll(async () => {
    await proxy?.close();
    await server?.close();
  });

  it(
    'judges each client session on its own and numbers them in the record',
    async () => {
      await Promise.all([runSdkSession('http', proxy.url, undefined), runSdkSession('http', proxy.url, undefined)]);
      await Promise.all(proxy.sessions().map((session) => session.ended));
      expect(proxy.sessions().map((session) => session.number).sort()).toEqual([1, 2]);
      expect(describeViolations(proxy)).toBe('(none)');
      expect(proxy.record.entriesOf(1).length).toBeGreaterThan(5);
      expect(proxy.record.entriesOf(2).length).toBeGreaterThan(5);
    },
    TEST_DEADLINE_MS,
  );
});
