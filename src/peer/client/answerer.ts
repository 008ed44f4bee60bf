// Who answers the prompts of an MCP Flow interaction: a person at a terminal (src/cli/terminal),
// or a script. The mock client asks the Answerer once per prompt (the initialPrompt, each
// interaction.prompt, each interaction.continue nextPrompt) and sends what it returns as
// interaction.respond `response.value`; CANCEL cancels the interaction instead.
import { readFile } from 'node:fs/promises';
import { AnswerScriptError, AnswersExhaustedError } from './errors.js';

/** Returned by `Answerer.ask` to cancel the interaction (interaction.cancel) instead of answering. */
export const CANCEL: unique symbol = Symbol('mcp-flow.cancel');

/** What the client knows when it asks for a value. */
export interface AskState {
  sessionId: string;
  /** 1 for the first answer to this prompt, 2 after one rejection, ... */
  attempt: number;
  /** The server's refusal of the previous value for this prompt (accepted: false). */
  rejected?: { message?: string; suggestion?: unknown; errors?: unknown };
}

export interface ProgressUpdate {
  requestId: number | string;
  progress: number;
  total?: number;
  message?: string;
}

export interface Answerer {
  /** The value to send for this prompt, or CANCEL to cancel the interaction. */
  ask(prompt: Record<string, unknown>, state: AskState): Promise<unknown>;
  /** Optional hooks for a UI: */
  progress?(update: ProgressUpdate): void;
  message?(text: string): void;
}

/** Answers from a list, in order; asking past its end throws AnswersExhaustedError. */
export function scriptedAnswerer(values: readonly unknown[]): Answerer & { readonly used: number } {
  const script = [...values];
  let used = 0;
  return {
    get used() {
      return used;
    },
    async ask(prompt) {
      if (used >= script.length) throw new AnswersExhaustedError(used, prompt);
      return script[used++];
    },
  };
}

/**
 * Reads an answer script: a JSON array of values, or an object `{ "answers": [...] }` (the form a
 * scenario context uses). The string "$cancel" cancels the interaction at that point.
 */
export async function loadAnswerScript(path: string): Promise<unknown[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new AnswerScriptError(`cannot read the answer script ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AnswerScriptError(`the answer script ${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return answerList(parsed, path);
}

/** The answers of a parsed script (an array, or `{ answers: [...] }`), with "$cancel" turned into CANCEL. */
export function answerList(parsed: unknown, source = 'the answer script'): unknown[] {
  const list = Array.isArray(parsed)
    ? parsed
    : typeof parsed === 'object' && parsed !== null && Array.isArray((parsed as { answers?: unknown }).answers)
      ? (parsed as { answers: unknown[] }).answers
      : undefined;
  if (list === undefined) throw new AnswerScriptError(`${source} must be a JSON array of answers or an object with an "answers" array`);
  return list.map((value) => (value === '$cancel' ? CANCEL : value));
}
