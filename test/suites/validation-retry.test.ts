// Suite `validation-retry` against the mock server: no problem on a correct server (every transport,
// both encodings on WebTransport, the rejection as -32004 and without re-prompt, C-15), each fault
// of the catalog that breaks one of the suite's requirements is caught, and together with suite
// state-machine every fault of the MCP Flow areas both suites own is declared by some case.
import { describe, expect, it } from 'vitest';
import type { ConformanceCase } from '../../src/harness/index.js';
import { mockServerFaultCatalog } from '../../src/peer/server/index.js';
import { cases } from '../../suites/server/flow/validation-retry.js';
import { cases as stateMachine } from '../../suites/server/flow/state-machine.js';
import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { validatePromptValue } from '../../src/protocol/prompt-validation.js';
import { asFlowPrompt, invalidValues, promptProblems, satisfies, validValue } from '../../suites/support/flow.js';
import { propertyRuns } from '../support/property-runs.js';
import { ALTERNATE_READINGS, casesFlagging, casesFor, runOnMock, readingsSeen, notCaughtInSharedLoop } from './support.js';

const PREFIXES = ['FLOW-START-', 'FLOW-PROMPT-', 'FLOW-RESPOND-', 'FLOW-VALID-', 'FLOW-SM-', 'FLOW-STATE-', 'FLOW-ERR-'];

/**
 * The areas whose faults this suite must catch. FLOW-ERR faults are state-machine's: here the
 * Flow error codes only show under the -32004 reading of a rejection (C-15), which the mock does
 * not use by default.
 */
const CAUGHT_HERE = ['FLOW-PROMPT-', 'FLOW-RESPOND-', 'FLOW-VALID-'];

/** Faults of those areas the suite cannot see from outside, with the reason (kept exact). */
const NOT_CAUGHT: Record<string, string> = {};

/**
 * Faults of the areas the two suites own that neither declares, with the suite that checks them
 * instead (kept exact).
 */
const OWNED_ELSEWHERE: Record<string, string> = {};

type Fault = ReturnType<typeof mockServerFaultCatalog>[number];

/** The catalog faults that break a requirement of `prefixes` that some case of `cases` declares. */
function faultsFor(cases: readonly ConformanceCase[], prefixes: readonly string[]): Fault[] {
  const declared = new Set(cases.flatMap((c) => c.requirements));
  return mockServerFaultCatalog().filter((f) => prefixes.some((p) => f.requirement.startsWith(p)) && declared.has(f.requirement));
}

/** Runs the cases declaring the fault's requirement with that fault on; true when one FAILs/WARNs citing it. */
async function caught(cases: readonly ConformanceCase[], fault: Fault): Promise<{ caught: boolean; verdicts: Record<string, string> }> {
  const run = await runOnMock(casesFor(cases, fault.requirement), { transport: fault.layer === 'fastworkflow' ? 'http' : 'wt', faults: [fault.name] });
  const hit = casesFlagging(run, fault.requirement).length > 0;
  return { caught: hit, verdicts: run.verdicts };
}

/** Every fault of the areas is caught, except the listed ones (which must stay uncaught and exist). */
async function faultLoop(cases: readonly ConformanceCase[], prefixes: readonly string[], notCaught: Record<string, string>) {
  const faults = faultsFor(cases, prefixes);
  expect(faults.length).toBeGreaterThan(0);
  const uncaught: { fault: string; requirement: string; verdicts: Record<string, string> }[] = [];
  const caughtAnyway: string[] = [];
  // Only the faults the shared fault loop's pinned runs do not show caught by a case of this suite
  // (test/suites/support.ts, notCaughtInSharedLoop), and the listed ones: the others are proven there.
  const toRun = faults.filter((f) => f.name in notCaught || notCaughtInSharedLoop([f], cases).length > 0);
  for (let i = 0; i < toRun.length; i += 6) {
    const batch = toRun.slice(i, i + 6);
    const results = await Promise.all(batch.map((fault) => caught(cases, fault)));
    batch.forEach((fault, j) => {
      const r = results[j]!;
      if (!r.caught && !(fault.name in notCaught)) uncaught.push({ fault: fault.name, requirement: fault.requirement, verdicts: r.verdicts });
      if (r.caught && fault.name in notCaught) caughtAnyway.push(fault.name);
    });
  }
  const names = new Set(mockServerFaultCatalog().map((f) => f.name));
  return { uncaught, caughtAnyway, stale: Object.keys(notCaught).filter((n) => !names.has(n)) };
}

/** Every prompt of the shipped wizards (wizards/*.json), as the mock sends them (templates aside). */
function shippedPrompts(): { where: string; prompt: Record<string, unknown> }[] {
  const dir = new URL('../../wizards/', import.meta.url);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .flatMap((file) => {
      const wizard = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { steps: { id: string; prompt: Record<string, unknown> }[] };
      return wizard.steps.map((step) => ({ where: `${file}#${step.id}`, prompt: step.prompt }));
    });
}

describe('flow support values', () => {
  it('builds a valid value for every shipped prompt, and invalid ones that break exactly their rule', () => {
    const prompts = shippedPrompts();
    expect(prompts.length).toBeGreaterThan(10);
    for (const { where, prompt } of prompts) {
      expect(promptProblems(prompt), where).toEqual([]);
      expect(satisfies(prompt, validValue(prompt)), `${where}: ${JSON.stringify(validValue(prompt))}`).toBe(true);
      for (const probe of invalidValues(prompt)) {
        const outcome = validatePromptValue(asFlowPrompt(prompt), probe.value);
        expect(outcome.valid, `${where}: ${probe.description}`).toBe(false);
        if (!outcome.valid) expect(outcome.requirement, `${where}: ${probe.description}`).toBe(probe.requirement);
      }
    }
  });

  it('gives answers no accepted reading disputes: valid values pass, probes fail under every C-31 reading (rule 5)', () => {
    const readings = [{}, { lengthUnit: 'utf16', numericStrings: true, anchoredPattern: true, booleanWords: true, emptyTextIsValue: true }] as const;
    for (const { where, prompt } of shippedPrompts()) {
      for (const options of readings) {
        expect(validatePromptValue(asFlowPrompt(prompt), validValue(prompt), options).valid, `${where} ${JSON.stringify(options)}`).toBe(true);
        for (const probe of invalidValues(prompt)) {
          expect(validatePromptValue(asFlowPrompt(prompt), probe.value, options).valid, `${where}: ${probe.description} ${JSON.stringify(options)}`).toBe(false);
        }
      }
    }
  });

  it('text values fit any pattern, min and max they can fit (property)', () => {
    const patterns = ['^[A-Za-z]+$', '^[0-9]{3,}$', '^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$', '^[a-z][a-z0-9_-]*$', 'x', '^(yes|no)$'];
    fc.assert(
      fc.property(fc.constantFrom(...patterns), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 40 }), (pattern, min, extra) => {
        const prompt = { type: 'text', message: 'm', validation: { required: true, pattern, min, max: min + extra } };
        const value = validValue(prompt);
        if (value !== undefined) expect(satisfies(prompt, value), JSON.stringify({ prompt, value })).toBe(true);
        for (const probe of invalidValues(prompt)) {
          const outcome = validatePromptValue(asFlowPrompt(prompt), probe.value);
          expect(outcome.valid ? undefined : outcome.requirement, JSON.stringify({ prompt, probe })).toBe(probe.requirement);
        }
      }),
      { numRuns: propertyRuns(100) },
    );
  });
});

describe('suite validation-retry', () => {
  it('has no problem on the correct mock over WebTransport (default encodings)', async () => {
    const run = await runOnMock(cases, { transport: 'wt' });
    expect(run.problems).toEqual([]);
    expect(Object.values(run.verdicts).every((v) => v === 'PASS' || v === 'INFO')).toBe(true);
  }, 60_000);

  it('has no problem over WebTransport with JSON only', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { encodings: ['json'] } });
    expect(run.problems).toEqual([]);
  }, 60_000);

  it('has no problem over HTTP', async () => {
    const run = await runOnMock(cases, { transport: 'http' });
    expect(run.problems).toEqual([]);
  }, 60_000);

  it('accepts the other readings: the rejection as -32004 (C-15) and the kept prompt without a re-prompt', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { flow: { rejectWithError: true, reprompt: false } } });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'validation-retry/rejection-and-retry', 'FLOW-RESPOND-3')).toEqual([2]);
    expect(readingsSeen(run, 'validation-retry/rejection-and-retry', 'FLOW-RESPOND-4')).toEqual([2]);
  }, 60_000);

  it('reports the C-31 readings: code points and JSON numbers by default, UTF-16 units and numeric strings when the mock is switched', async () => {
    const byDefault = await runOnMock(casesFor(cases, 'FLOW-VALID-4').concat(casesFor(cases, 'FLOW-VALID-6')), { transport: 'wt' });
    expect(readingsSeen(byDefault, 'validation-retry/text-length', 'FLOW-VALID-4')).toEqual([1]);
    expect(readingsSeen(byDefault, 'validation-retry/number-type', 'FLOW-VALID-6')).toEqual([1]);
    const other = await runOnMock(casesFor(cases, 'FLOW-VALID-4').concat(casesFor(cases, 'FLOW-VALID-6')), {
      transport: 'wt',
      server: { flow: { validation: { lengthUnit: 'utf16', numericStrings: true } } },
    });
    expect(other.problems).toEqual([]);
    expect(readingsSeen(other, 'validation-retry/text-length', 'FLOW-VALID-4')).toEqual([2]);
    expect(readingsSeen(other, 'validation-retry/number-type', 'FLOW-VALID-6')).toEqual([2]);
  }, 60_000);

  it('has no problem on the alternate-readings mock, and names the readings it took', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: ALTERNATE_READINGS });
    expect(run.problems).toEqual([]);
    expect(readingsSeen(run, 'validation-retry/accepted-result', 'FLOW-RESPOND-2')).toEqual([2]);
    expect(readingsSeen(run, 'validation-retry/rejection-and-retry', 'FLOW-VALID-10')).toEqual([2]);
    expect(readingsSeen(run, 'validation-retry/rejection-and-retry', 'FLOW-STATE-2')).toEqual([3]);
    expect(readingsSeen(run, 'validation-retry/respond-invalid-params', 'FLOW-RESPOND-7')).toEqual([2]);
    expect(readingsSeen(run, 'validation-retry/confirm', 'FLOW-VALID-8')).toEqual([2]);
    expect(readingsSeen(run, 'validation-retry/text-length', 'FLOW-VALID-4')).toEqual([2]);
    const http = await runOnMock(cases, { transport: 'http', server: ALTERNATE_READINGS });
    expect(http.problems).toEqual([]);
  }, 120_000);

  it('does not apply to a server with interactive mode off, and says why', async () => {
    const run = await runOnMock(cases, { transport: 'wt', server: { flow: { interactive: false } } });
    expect(run.result.cases.every((c) => c.verdict === 'NOT_APPLICABLE' && /interactive/.test(c.reason ?? ''))).toBe(true);
  }, 60_000);

  it('catches every fault of its requirement areas', async () => {
    expect(await faultLoop(cases, CAUGHT_HERE, NOT_CAUGHT)).toEqual({ uncaught: [], caughtAnyway: [], stale: [] });
  }, 120_000);

  it('together with suite state-machine, declares the requirement of every fault of the areas', () => {
    const declared = new Set([...cases, ...stateMachine].flatMap((c) => c.requirements));
    const undeclared = mockServerFaultCatalog()
      .filter((f) => PREFIXES.some((p) => f.requirement.startsWith(p)) && !declared.has(f.requirement))
      .map((f) => f.name);
    expect(undeclared.sort()).toEqual(Object.keys(OWNED_ELSEWHERE).sort());
  });
});
