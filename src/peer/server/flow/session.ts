// One MCP Flow session as data (000 §Session Data) and the pure steps of a wizard run: which step
// comes next, the progress object, the prompt as sent, the getState snapshot. The record is plain
// JSON so that stateless mode can carry it inside a signed token.
import type { InteractionState } from '../../../protocol/flow-session.js';
import type { EnginePrompt } from './answers.js';
import { renderTemplate, renderText, type TemplateScope } from './template.js';
import { COMPLETE_TARGET, storeKey, type Wizard, type WizardCondition, type WizardStep } from './wizard.js';

export interface HistoryTurn {
  turnId: number;
  prompt: EnginePrompt;
  response: { value: unknown; timestamp?: number; metadata?: Record<string, unknown> };
  timestamp: number;
}

export interface SessionRecord {
  /** The session's own id (in stateless mode the token's inner sessionId). */
  id: string;
  toolName: string;
  /** The wizard that runs it (the tool's name, except under the start-unknown-tool fault). */
  wizardName: string;
  connectionId: string;
  state: InteractionState;
  createdAt: number;
  lastActivityAt: number;
  timeoutMs: number;
  /** The step whose prompt is current (or is being prepared); null before the first and after the last. */
  stepId: string | null;
  /** The prompt as sent to the client, while the session waits for the user. */
  currentPrompt: EnginePrompt | null;
  history: HistoryTurn[];
  accumulatedData: Record<string, unknown>;
  /** Prompts sent so far, re-prompts included (FLOW-RATE-4). */
  promptCount: number;
  /** History entries that record a rejected exchange (the recordRejectedTurns reading of FLOW-VALID-10); absent when none. */
  rejectedTurns?: number;
  params: Record<string, unknown>;
  context: Record<string, unknown>;
}

export function stepById(wizard: Wizard, id: string): WizardStep | undefined {
  return wizard.steps.find((step) => step.id === id);
}

export function scopeOf(record: SessionRecord): TemplateScope {
  return { data: record.accumulatedData, params: record.params };
}

function holds(condition: WizardCondition, value: unknown): boolean {
  if (condition.equals !== undefined && value !== condition.equals) return false;
  if (condition.in !== undefined && !condition.in.some((v) => v === value)) return false;
  if (condition.lessThan !== undefined && !(typeof value === 'number' && value < condition.lessThan)) return false;
  if (condition.atLeast !== undefined && !(typeof value === 'number' && value >= condition.atLeast)) return false;
  return true;
}

/** The step after `step` given the data so far: the first branch that holds, else `next`, else the following step. */
export function nextTarget(wizard: Wizard, step: WizardStep, data: Record<string, unknown>): string {
  for (const branch of step.branches ?? []) {
    const value = data[branch.when.field ?? storeKey(step)];
    if (holds(branch.when, value)) return branch.next;
  }
  if (step.next !== undefined) return step.next;
  const index = wizard.steps.indexOf(step);
  return wizard.steps[index + 1]?.id ?? COMPLETE_TARGET;
}

/** Steps from `step` to the end along the default path (ignoring branches), `step` included. */
export function stepsToEnd(wizard: Wizard, step: WizardStep): number {
  const seen = new Set<string>();
  let current: WizardStep | undefined = step;
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    const target: string = current.next ?? wizard.steps[wizard.steps.indexOf(current) + 1]?.id ?? COMPLETE_TARGET;
    current = target === COMPLETE_TARGET ? undefined : stepById(wizard, target);
  }
  return seen.size;
}

export interface Progress {
  current: number;
  total: number;
  message?: string;
}

/** Answers accepted so far: the history entries that do not record a rejection. */
export function acceptedAnswers(record: SessionRecord): number {
  return record.history.length - (record.rejectedTurns ?? 0);
}

/** FLOW-PROMPT-10: current = answers accepted so far, total = that plus the steps still ahead (>= current). */
export function progressFor(wizard: Wizard, record: SessionRecord, step: WizardStep, message?: string): Progress {
  const current = acceptedAnswers(record);
  const total = current + stepsToEnd(wizard, step);
  const text = message ?? step.progressMessage ?? `Step ${current + 1} of ${total}`;
  return { current, total, message: renderText(text, scopeOf(record)) };
}

/** The step's prompt with its message rendered against the session's data (what validation uses). */
export function renderPrompt(step: WizardStep, record: SessionRecord): EnginePrompt {
  const prompt = structuredClone(step.prompt);
  prompt.message = renderText(prompt.message, scopeOf(record));
  return prompt;
}

/** The wizard's result data and summary for interaction.complete. */
export function renderResult(wizard: Wizard, record: SessionRecord): { data: unknown; summary?: string } {
  const scope = scopeOf(record);
  const data = renderTemplate(wizard.result.data, scope);
  return wizard.result.summary === undefined ? { data } : { data, summary: renderText(wizard.result.summary, scope) };
}

export interface ExportPayload {
  fileName: string;
  mimeType: string;
  rows: number;
  bytes: Buffer;
}

/** Most rows an export renders, whatever the answers say. */
export const MAX_EXPORT_ROWS = 1_000_000;

/** The file a wizard with `export` produces (an execution stream's payload on WebTransport). */
export function renderExport(wizard: Wizard, data: Record<string, unknown>, params: Record<string, unknown> = {}): ExportPayload | undefined {
  const spec = wizard.export;
  if (spec === undefined) return undefined;
  const scope: TemplateScope = { data, params };
  const count = spec.rows === undefined ? 1 : Number(renderText(spec.rows, scope));
  const rows = Number.isFinite(count) ? Math.min(MAX_EXPORT_ROWS, Math.max(0, Math.floor(count))) : 0;
  const parts: string[] = [spec.header === undefined ? '' : renderText(spec.header, scope)];
  for (let row = 1; row <= rows; row++) parts.push(renderText(spec.body, { ...scope, row }));
  return { fileName: renderText(spec.fileName, scope), mimeType: spec.mimeType, rows, bytes: Buffer.from(parts.join(''), 'utf8') };
}
