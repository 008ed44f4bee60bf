import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { countVerdicts } from '../../src/harness/result.js';
import { renderJUnit } from '../../src/report/junit.js';
import { HOSTILE, failingTranscript, makeCase, sampleRun } from './run-fixture.js';

const XSD = readFileSync(fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url)), 'utf8');

async function validate(xml: string): Promise<readonly string[]> {
  const result = await validateXML({
    xml: { fileName: 'report.xml', contents: xml },
    schema: { fileName: 'junit.xsd', contents: XSD },
  });
  return result.valid ? [] : result.errors.map((error) => error.message);
}

function testcase(xml: string, name: string): string {
  const start = xml.indexOf(`name="${name}"`);
  expect(start, `testcase ${name}`).toBeGreaterThan(-1);
  return xml.slice(start, xml.indexOf('</testcase>', start));
}

/** An attribute of the first `element` start tag (values may hold `>`, which XML allows). */
function attribute(xml: string, element: string, name: string): string | undefined {
  return new RegExp(`<${element}\\s(?:[^>"]|"[^"]*")*?\\b${name}="([^"]*)"`).exec(xml)?.[1];
}

/** Element names outside CDATA sections and attribute values. */
function elementNames(xml: string): Set<string> {
  const markup = xml.replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, '').replace(/"[^"]*"/g, '""');
  return new Set([...markup.matchAll(/<([A-Za-z][\w-]*)/g)].map((match) => match[1]!));
}

describe('JUnit XML', () => {
  it('validates against the JUnit XSD, strict and not', async () => {
    expect(await validate(renderJUnit(sampleRun()))).toEqual([]);
    expect(await validate(renderJUnit(sampleRun({ strict: true })))).toEqual([]);
  });

  it('the XSD rejects what the Jenkins/Ant shape does not allow', async () => {
    const xml = renderJUnit(sampleRun());
    expect(await validate(xml.replace('<skipped message', '<failure/><skipped message'))).not.toEqual([]);
    expect(await validate(xml.replace('tests="8"', 'tests="-1"'))).not.toEqual([]);
    expect(await validate(xml.replace(/<testcase classname="flow" name="[^"]*"/, '<testcase classname="flow"'))).not.toEqual([]);
  });

  it('counts: FAIL and TIMEOUT fail, ERROR errs, SKIPPED and NOT_APPLICABLE skip; WARN fails only under strict', () => {
    const relaxed = renderJUnit(sampleRun());
    expect(attribute(relaxed, 'testsuites', 'tests')).toBe('8');
    expect(attribute(relaxed, 'testsuites', 'failures')).toBe('2');
    expect(attribute(relaxed, 'testsuites', 'errors')).toBe('1');
    expect(attribute(relaxed, 'testsuites', 'skipped')).toBe('2');
    expect(relaxed.match(/<testcase\b/g)).toHaveLength(8);
    expect(relaxed.match(/<testsuite\b/g)).toHaveLength(2);

    const strict = renderJUnit(sampleRun({ strict: true }));
    expect(attribute(strict, 'testsuites', 'failures')).toBe('3');
    expect(testcase(strict, 'negotiation/warn-case')).toContain('<failure message="FLOW-RATE-2: retryAfter is given" type="WARN">');
    expect(testcase(relaxed, 'negotiation/warn-case')).not.toContain('<failure');
    expect(testcase(relaxed, 'negotiation/warn-case')).toContain('WARN (a SHOULD; fails under --strict)');
  });

  it('names each testcase by case ID, classname by suite, with requirement properties', () => {
    const xml = renderJUnit(sampleRun());
    const failing = testcase(xml, 'flow/fail-case');
    expect(xml).toContain('<testcase classname="flow" name="flow/fail-case" time="0.013">');
    expect(failing).toContain('<property name="requirement" value="WT-ENC-5"/>');
    expect(failing).toContain('<property name="requirement" value="WT-FRAME-4"/>');
    expect(failing).toContain('<property name="level" value="MUST"/>');
    expect(failing).toContain('<property name="verdict" value="FAIL"/>');
    expect(failing).toContain('<property name="seed" value="1234"/>');
    expect(failing).toContain('<property name="path" value="0:1:2"/>');
  });

  it('puts expected/actual in <failure>, the transcript and rerun in <system-out>', () => {
    const failing = testcase(renderJUnit(sampleRun()), 'flow/fail-case');
    expect(failing).toContain('<failure message="initialize answered in CBOR" type="FAIL"><![CDATA[');
    expect(failing).toContain('expected: {"encoding":"json"}');
    expect(failing).toContain('actual:   {"encoding":"cbor","firstByte":162}');
    expect(failing).toContain('requirement: "The initialize request and its result MUST be JSON."');
    const out = failing.slice(failing.indexOf('<system-out>'));
    expect(out).toContain('#1 → control  {"jsonrpc":"2.0","id":1,"method":"initialize"');
    expect(out).toContain('#2 ← control  [INVALID_JSON]');
    expect(out).toContain('rerun: npx mcp-flow-conformance run --case flow/fail-case');
  });

  it('ERROR is <error>, TIMEOUT a <failure type="TIMEOUT">, skips carry their reason', () => {
    const xml = renderJUnit(sampleRun());
    expect(testcase(xml, 'flow/error-case')).toContain('<error message="harness bug: TypeError: x is undefined" type="ERROR">');
    expect(testcase(xml, 'negotiation/timeout-case')).toContain('<failure message="no answer to tools/list within 5000 ms" type="TIMEOUT">');
    expect(testcase(xml, 'flow/skipped-case')).toContain('<skipped message="SKIPPED: excluded by --exclude flow/*"/>');
    expect(testcase(xml, 'negotiation/not-applicable-case')).toContain('<skipped message="NOT_APPLICABLE: the server does not declare the flow capability"/>');
    expect(testcase(xml, 'negotiation/pass-case')).not.toMatch(/<(failure|error|skipped)/);
  });

  it('stays well-formed with hostile text: CDATA terminators, markup, control characters', async () => {
    const transcript = failingTranscript();
    transcript.push({ seq: 4, at: 0, direction: 'received', channel: { kind: 'control' }, byteLength: 3, decoded: { a: ']]>]]><x>', b: 'nul\u0000bell\u0007' } });
    const hostile = makeCase('FAIL', 9, { id: `flow/${HOSTILE}`, reason: `${HOSTILE}]]>\u0001`, transcript, rerun: `run --case '${HOSTILE}'` });
    const xml = renderJUnit(sampleRun({}, [hostile]));
    expect(await validate(xml)).toEqual([]);
    expect([...elementNames(xml)].sort()).toEqual(['error', 'failure', 'properties', 'property', 'skipped', 'system-out', 'testcase', 'testsuite', 'testsuites']);
    expect(xml).toContain(`name="flow/&lt;script>alert(&quot;x&quot;)&lt;/script>`);
    // The second CDATA terminator inside one text is broken up too (xmlbuilder only splits the first).
    expect(xml).toContain('"a":"]] >]] ><x>"');
  });

  it('an empty run is still a valid report', async () => {
    const xml = renderJUnit({ ...sampleRun(), cases: [], summary: countVerdicts([]), exitCode: 0 });
    expect(await validate(xml)).toEqual([]);
    expect(attribute(xml, 'testsuites', 'tests')).toBe('0');
  });

  it('a second report does not carry the first one’s cases (the package exports a shared builder)', () => {
    renderJUnit(sampleRun());
    const again = renderJUnit(sampleRun());
    expect(attribute(again, 'testsuites', 'tests')).toBe('8');
  });
});

describe('JUnit: the baseline and the selection', () => {
  /** A run with a baseline: one expected failure, one stale entry, one failure the baseline does not list. */
  function baselineRun(options: Record<string, unknown> = {}) {
    const expected = makeCase('FAIL', 1, { id: 'flow/expected', baseline: 'expected-failure', baselineReason: 'known bug #12' });
    const stale = makeCase('PASS', 0, { id: 'negotiation/stale', baseline: 'stale', baselineReason: 'was broken' });
    const regression = makeCase('FAIL', 3, { id: 'flow/regression' });
    const cases = [expected, stale, regression];
    return { ...sampleRun({ baselineEntries: 2, ...options }), cases, summary: countVerdicts(cases), notSelected: 5, options: { strict: false, baselineEntries: 2, shard: '1/2', ...options } };
  }

  it('an expected failure is <skipped type="expected-failure"> with the reason and the baseline\'s reason, never a <failure>', async () => {
    const xml = renderJUnit(baselineRun());
    expect(await validate(xml)).toEqual([]);
    const expected = testcase(xml, 'flow/expected');
    expect(expected).not.toContain('<failure');
    expect(expected).toContain('<skipped type="expected-failure" message="expected failure: FAIL initialize answered in CBOR (baseline: known bug #12)"/>');
    expect(expected).toContain('<property name="baselineReason" value="known bug #12"/>');
    // Consumers count one failure: the regression.
    expect(attribute(xml, 'testsuites', 'failures')).toBe('1');
    expect(attribute(xml, 'testsuites', 'skipped')).toBe('1');
  });

  it('a stale entry passes with a note, and is a <failure type="stale-baseline"> under --fail-on-stale', async () => {
    const relaxed = renderJUnit(baselineRun());
    expect(testcase(relaxed, 'negotiation/stale')).not.toContain('<failure');
    expect(testcase(relaxed, 'negotiation/stale')).toContain('stale baseline entry: listed in the baseline as an expected failure (was broken), but now PASS: remove the entry');
    const failing = renderJUnit(baselineRun({ failOnStale: true }));
    expect(await validate(failing)).toEqual([]);
    expect(testcase(failing, 'negotiation/stale')).toMatch(/<failure message="listed in the baseline as an expected failure \(was broken\), but now PASS: remove the entry" type="stale-baseline"/);
    expect(attribute(failing, 'testsuites', 'failures')).toBe('2');
  });

  it('cases the filters left out are a count, not testcases', () => {
    const xml = renderJUnit(baselineRun());
    expect(xml.match(/<testcase\b/g)).toHaveLength(3);
    expect(xml).toContain('<property name="notSelected" value="5 not selected (--shard 1/2)"/>');
    expect(xml).toContain('<property name="counts" value="1 passed, 2 failed, 0 skipped, 0 warned, 0 not applicable, 0 timed out, 0 errors, 0 info, 1 expected failure, 1 stale"/>');
  });
});
