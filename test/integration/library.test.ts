// The library API (src/index.ts) against the mock server in-process: the structured result of a
// clean and of a faulty run, the baseline, reporters and report files, and every option error
// naming its option.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConformanceOptionsError,
  HarnessError,
  NoCasesSelectedError,
  BaselineError,
  TargetUnreachableError,
  httpTarget,
  parseJsonReport,
  runServerConformance,
  serverCaseRegistry,
  startMockServer,
  type RunEvent,
  type RunningMockServer,
} from '../../src/index.js';
import { unreachableUrl } from '../support/unreachable.js';

/** A few quick core cases; results-are-objects is the one the ping fault breaks. */
const CASES = ['mcp-core/results-are-objects', 'mcp-core/unknown-method-error-shape', 'mcp-core/tools-list'];
const BROKEN = 'mcp-core/results-are-objects';

describe('runServerConformance against the mock server', () => {
  let correct: RunningMockServer;
  let faulty: RunningMockServer;
  let wt: RunningMockServer;
  const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-library-'));

  beforeAll(async () => {
    [correct, faulty, wt] = await Promise.all([
      startMockServer({ transport: 'http' }),
      startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] }),
      startMockServer({ transport: 'wt' }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([correct?.close(), faulty?.close(), wt?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('a correct server: every selected case passes, the others are only counted, exit code 0', async () => {
    const result = await runServerConformance({ url: correct.url, suites: 'mcp-core', cases: CASES, timeoutScale: 2 });
    expect(result.exitCode).toBe(0);
    expect(result.target).toMatchObject({ description: correct.url, transport: 'http', serverInfo: { name: expect.any(String) } });
    const ran = result.cases;
    expect(ran.map((c) => c.id).sort()).toEqual([...CASES].sort());
    // INFO: the server chose one of the readings the documents accept.
    for (const c of ran) expect(['PASS', 'INFO'], `${c.id}: ${c.reason}`).toContain(c.verdict);
    expect(result.summary.PASS + result.summary.INFO).toBe(CASES.length);
    expect(result.summary.total).toBe(CASES.length);
    expect(result.notSelected).toBe((await serverCaseRegistry()).size - CASES.length);
    expect(result.options).toMatchObject({ suites: ['mcp-core'], cases: CASES, timeoutScale: 2, strict: false });
  });

  it('a faulty server: the broken case FAILs with its checks, transcript excerpt and a rerun command; exit code 1', async () => {
    const result = await runServerConformance({ url: faulty.url, cases: CASES });
    expect(result.exitCode).toBe(1);
    const broken = result.cases.find((c) => c.id === BROKEN)!;
    expect(broken.verdict).toBe('FAIL');
    // The reason says what was expected and what came, never only what the check was about.
    expect(broken.reason).toBe('ping is answered with {}: expected {}, got {"pong":true}');
    expect(broken.checks).toContainEqual(expect.objectContaining({ requirement: 'CORE-RPC-14', verdict: 'FAIL', actual: { pong: true } }));
    expect(broken.transcript?.some((entry) => entry.direction === 'received')).toBe(true);
    expect(broken.rerun).toBe(`mcp-flow-conformance server --url ${faulty.url} --case ${BROKEN}`);
    for (const id of CASES.filter((id) => id !== BROKEN)) expect(['PASS', 'INFO']).toContain(result.cases.find((c) => c.id === id)?.verdict);
  });

  it('a baseline listing the broken case: an expected failure, exit code 0; given as an object or a file', async () => {
    const baseline = { version: 1 as const, expectedFailures: { [BROKEN]: 'ping answers a non-empty result' } };
    const fromObject = await runServerConformance({ url: faulty.url, cases: [BROKEN], baseline });
    expect(fromObject.exitCode).toBe(0);
    expect(fromObject.cases.find((c) => c.id === BROKEN)).toMatchObject({ verdict: 'FAIL', baseline: 'expected-failure' });
    const file = join(dir, 'baseline.json');
    writeFileSync(file, JSON.stringify(baseline));
    const fromFile = await runServerConformance({ url: correct.url, cases: [BROKEN], baseline: file });
    // The correct server passes it (PASS, or INFO naming a reading it chose): the entry is stale, and the run still succeeds.
    expect(fromFile.exitCode).toBe(0);
    const passed = fromFile.cases.find((c) => c.id === BROKEN)!;
    expect(['PASS', 'INFO']).toContain(passed.verdict);
    expect(passed).toMatchObject({ baseline: 'stale', baselineReason: 'ping answers a non-empty result' });
  });

  it('reporters see every event; report files are written and read back to the same result', async () => {
    const events: RunEvent['type'][] = [];
    const handled: string[] = [];
    const reports = { json: join(dir, 'r', 'report.json'), junit: join(dir, 'r', 'junit.xml'), html: join(dir, 'r', 'report.html') };
    const result = await runServerConformance({
      url: faulty.url,
      cases: [BROKEN],
      reporters: [(event) => events.push(event.type), { handle: (event) => event.type === 'case-end' && handled.push(event.result.id) }],
      reports,
    });
    expect(events[0]).toBe('run-start');
    expect(events.at(-1)).toBe('run-end');
    expect(events.filter((type) => type === 'case-end')).toHaveLength(1);
    expect(handled).toEqual([BROKEN]);
    expect(parseJsonReport(readFileSync(reports.json, 'utf8')).summary).toEqual(result.summary);
    expect(readFileSync(reports.junit, 'utf8')).toContain(BROKEN);
    expect(readFileSync(reports.html, 'utf8')).toContain(BROKEN);
  });

  it('WebTransport with the pinned certificate hash, and a Target built by the caller', async () => {
    const byUrl = await runServerConformance({ url: wt.url, certificateHash: wt.certificateHash!, cases: ['mcp-core/unknown-method-error-shape'] });
    expect(byUrl.target.transport).toBe('webtransport');
    expect(byUrl.cases.find((c) => c.id === 'mcp-core/unknown-method-error-shape')?.verdict).toBe('PASS');
    expect(byUrl.cases.find((c) => c.id === 'mcp-core/unknown-method-error-shape')?.rerun).toContain(`--certificate-hash ${wt.certificateHash}`);
    const byTarget = await runServerConformance({ target: httpTarget(correct.url), cases: ['mcp-core/unknown-method-error-shape'] });
    expect(byTarget.exitCode).toBe(0);
  });

  it('an unreachable server rejects with TargetUnreachableError, a filter that selects nothing with NoCasesSelectedError', async () => {
    const url = unreachableUrl();
    const report = join(dir, 'unreachable', 'report.json');
    await expect(runServerConformance({ url, cases: [BROKEN], reports: { json: report } })).rejects.toBeInstanceOf(TargetUnreachableError);
    // The reports asked for are written all the same, with the error at run level.
    expect(parseJsonReport(readFileSync(report, 'utf8'))).toMatchObject({ exitCode: 2, cases: [], error: { code: 'TARGET_UNREACHABLE' } });
    await expect(runServerConformance({ url: correct.url, cases: ['no-such/*'] })).rejects.toBeInstanceOf(NoCasesSelectedError);
    await expect(runServerConformance({ url: correct.url, cases: [BROKEN], baseline: { version: 1, expectedFailures: { 'no/such-case': 'x' } } })).rejects.toBeInstanceOf(BaselineError);
  });
});

describe('runServerConformance: an unusable option is a ConformanceOptionsError naming it', () => {
  const hash = 'ab'.repeat(32);
  const cases: [string, Record<string, unknown>, string, RegExp][] = [
    ['no target', {}, 'url', /name the server under test with url, stdio or target/],
    ['two targets', { url: 'http://127.0.0.1:1/mcp', stdio: 'node x.js' }, 'stdio', /give one of url, stdio and target, not url and stdio/],
    ['an unknown option', { url: 'http://127.0.0.1:1/mcp', suite: 'mcp-core' }, 'suite', /is not an option of runServerConformance/],
    ['a URL that is not one', { url: 'not a url' }, 'url', /"not a url" is not a URL/],
    ['WebTransport over http:', { url: 'http://127.0.0.1:1/mcp', transport: 'webtransport' }, 'url', /WebTransport needs an https: URL/],
    ['a short certificate hash', { url: 'https://127.0.0.1:1/mcp', certificateHash: 'abc' }, 'certificateHash', /64 hex digits/],
    ['a certificate hash on HTTP', { url: 'http://127.0.0.1:1/mcp', certificateHash: hash }, 'certificateHash', /pins a WebTransport/],
    ['headers on WebTransport', { url: 'https://127.0.0.1:1/mcp', headers: { Authorization: 'x' } }, 'headers', /cannot add headers/],
    ['a header name that is not a token', { url: 'http://127.0.0.1:1/mcp', headers: { 'Bad Name': 'x' } }, 'headers', /is not of the form/],
    ['an unknown protocol version', { url: 'http://127.0.0.1:1/mcp', protocolVersion: '1999-01-01' }, 'protocolVersion', /not a protocol version/],
    ['HTTP/1 under WebTransport', { url: 'https://127.0.0.1:1/mcp', http: 1 }, 'http', /must be 2 or 3/],
    ['a CA file that is not there', { url: 'https://127.0.0.1:1/mcp', caFile: '/no/such/ca.pem' }, 'caFile', /cannot read \/no\/such\/ca.pem/],
    ['options beside a Target', { target: httpTarget('http://127.0.0.1:1/mcp'), headers: { A: 'b' } }, 'headers', /a target carries its own/],
    ['a target that is not one', { target: { url: 'http://x' } }, 'target', /must be a Target/],
    ['a malformed shard', { url: 'http://127.0.0.1:1/mcp', shard: '3/2' }, 'shard', /not of the form i\/n/],
    ['an impossible shard', { url: 'http://127.0.0.1:1/mcp', shard: { index: 0, count: 2 } }, 'shard', /is not a shard/],
    ['an empty case glob', { url: 'http://127.0.0.1:1/mcp', cases: [''] }, 'cases', /non-empty string/],
    ['a reporter that is none', { url: 'http://127.0.0.1:1/mcp', cases: [BROKEN], reporters: ['html'] }, 'reporters[0]', /'console', a function or an object/],
  ];
  it.each(cases)('%s', async (_what, options, option, message) => {
    const error = await runServerConformance(options as never).then(
      () => undefined,
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(ConformanceOptionsError);
    expect(error).toBeInstanceOf(HarnessError);
    expect((error as ConformanceOptionsError).option).toBe(option);
    expect((error as ConformanceOptionsError).code).toBe('CONFORMANCE_OPTIONS_INVALID');
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message.startsWith(`${option}: `)).toBe(true);
  });
});
