// The MCP Flow prompt rules of the judge: what each rule names, the two questions FLOW-PROMPT-15's
// words decide (a choice default that is an array of choice values; date bounds in order), and
// where a message carries its prompts. The suites use these very functions (no copy of their own).
import { describe, expect, it } from 'vitest';
import { flowMessageProblems, progressProblems, promptProblems } from '../../src/judge/index.js';
import * as suiteFlow from '../../suites/support/flow.js';

const requirementsOf = (problems: readonly { requirement: string }[]) => problems.map((p) => p.requirement);
const choices = [
  { value: 'a', label: 'A' },
  { value: 'b', label: 'B' },
];

describe('prompt rules', () => {
  it('a good prompt of every type has no problem', () => {
    for (const prompt of [
      { type: 'text', message: 'Name?', placeholder: 'Ada', defaultValue: 'Ada', validation: { required: true, pattern: '^[A-Z]', min: 1, max: 20 } },
      { type: 'choice', message: 'Pick', choices, defaultValue: 'b' },
      { type: 'confirm', message: 'Sure?', defaultValue: false },
      { type: 'number', message: 'Age', defaultValue: 30, validation: { min: 0, max: 130 } },
      { type: 'date', message: 'When?', defaultValue: '2030-06-15', validation: { min: '2030-01-01', max: '2030-12-31' } },
      { type: 'file', message: 'Upload' },
      { type: 'custom', message: 'Anything' },
    ]) {
      expect(promptProblems(prompt), prompt.type).toEqual([]);
    }
  });

  it('names the requirement each broken rule belongs to', () => {
    expect(requirementsOf(promptProblems({ type: 'slider', message: 'x' }))).toEqual(['FLOW-PROMPT-3']);
    expect(requirementsOf(promptProblems({ type: 'choice', message: 'x', choices: [{ value: 'a' }] }))).toEqual(['FLOW-PROMPT-4']);
    expect(requirementsOf(promptProblems({ type: 'text', message: 'x', validation: { required: 'yes' } }))).toEqual(['FLOW-PROMPT-5']);
    expect(requirementsOf(promptProblems({ type: 'text', message: 'x', validation: { pattern: '(' } }))).toEqual(['FLOW-PROMPT-6']);
    expect(requirementsOf(promptProblems({ type: 'confirm', message: 'x', defaultValue: 'yes' }))).toEqual(['FLOW-PROMPT-7']);
    expect(requirementsOf(promptProblems({ type: 'date', message: 'x', defaultValue: '15/06/2030' }))).toEqual(['FLOW-PROMPT-8']);
    expect(requirementsOf(promptProblems({ type: 'choice', message: 'x', choices: [...choices, { value: 'a', label: 'again' }] }))).toEqual(['FLOW-PROMPT-15']);
    expect(requirementsOf(promptProblems({ type: 'number', message: 'x', validation: { min: 9, max: 1 } }))).toEqual(['FLOW-PROMPT-15']);
  });

  it("a choice default is one of its values or an array of them (FLOW-PROMPT-15's words), never a value it does not list", () => {
    const choice = (defaultValue: unknown) => requirementsOf(promptProblems({ type: 'choice', message: 'Pick', multiple: true, choices, defaultValue }));
    expect(choice('a')).toEqual([]);
    expect(choice(['a', 'b'])).toEqual([]);
    expect(choice(['a', 'c'])).toEqual(['FLOW-PROMPT-15']);
    expect(choice('c')).toEqual(['FLOW-PROMPT-15']);
  });

  it('date bounds are in order like numeric ones; bounds that are no dates break FLOW-PROMPT-8 instead', () => {
    const date = (validation: Record<string, unknown>) => requirementsOf(promptProblems({ type: 'date', message: 'When?', validation }));
    expect(date({ min: '2030-12-31', max: '2030-01-01' })).toEqual(['FLOW-PROMPT-15']);
    expect(date({ min: '2030-01-01', max: '2030-01-01' })).toEqual([]);
    expect(date({ min: 'tomorrow' })).toEqual(['FLOW-PROMPT-8']);
  });

  it('progress: a number current (FLOW-PROMPT-10), integers within their total (FLOW-PROMPT-15)', () => {
    expect(progressProblems(undefined)).toEqual([]);
    expect(progressProblems({ current: 2, total: 5, message: 'step' })).toEqual([]);
    expect(requirementsOf(progressProblems({ current: '2' }))).toEqual(['FLOW-PROMPT-10']);
    expect(requirementsOf(progressProblems({ current: 5, total: 2 }))).toEqual(['FLOW-PROMPT-15']);
    expect(requirementsOf(progressProblems({ current: 1.5 }))).toEqual(['FLOW-PROMPT-15']);
  });

  it('the suites judge with the same functions', () => {
    expect(suiteFlow.promptProblems).toBe(promptProblems);
    expect(suiteFlow.progressProblems).toBe(progressProblems);
  });
});

describe('flowMessageProblems: the prompts a message carries', () => {
  const bad = { type: 'number', message: 'Age', validation: { min: 9, max: 1 } };
  it('the initialPrompt and progress of an interaction.start result, judged only when present', () => {
    expect(flowMessageProblems({ jsonrpc: '2.0', id: 1, result: { sessionId: 's', state: 'processing' } }, 'interaction.start')).toEqual([]);
    expect(requirementsOf(flowMessageProblems({ jsonrpc: '2.0', id: 1, result: { sessionId: 's', initialPrompt: bad, progress: { current: 3, total: 1 } } }, 'interaction.start'))).toEqual([
      'FLOW-PROMPT-15',
      'FLOW-PROMPT-15',
    ]);
    // The same result answering another request carries no prompt.
    expect(flowMessageProblems({ jsonrpc: '2.0', id: 1, result: { initialPrompt: bad } }, 'tools/call')).toEqual([]);
  });

  it("interaction.prompt's prompt, interaction.continue's nextPrompt, and their progress", () => {
    expect(requirementsOf(flowMessageProblems({ jsonrpc: '2.0', id: 2, method: 'interaction.prompt', params: { sessionId: 's', prompt: bad } }))).toEqual(['FLOW-PROMPT-15']);
    expect(requirementsOf(flowMessageProblems({ jsonrpc: '2.0', id: 3, method: 'interaction.continue', params: { sessionId: 's', nextPrompt: bad } }))).toEqual(['FLOW-PROMPT-15']);
    expect(requirementsOf(flowMessageProblems({ jsonrpc: '2.0', method: 'interaction.continue', params: { sessionId: 's', progress: { current: 'x' } } }))).toEqual(['FLOW-PROMPT-10']);
    expect(flowMessageProblems({ jsonrpc: '2.0', id: 4, method: 'interaction.complete', params: { sessionId: 's', prompt: bad } })).toEqual([]);
  });
});
