// A scripted run's transcript for CI logs: each prompt's question, the scripted value sent (as JSON,
// so 2 and "2" differ), and the server's refusal of a value, printed as they happen around another
// Answerer.
import { CANCEL, type Answerer, type AskState } from '../../peer/client/index.js';
import { renderPrompt, renderRejection, showValue, type TerminalPrompt } from './prompt-view.js';

export function echoingAnswerer(inner: Answerer, print: (line: string) => void): Answerer {
  return {
    async ask(prompt: Record<string, unknown>, state: AskState): Promise<unknown> {
      if (state.rejected) for (const line of renderRejection(state.rejected)) print(`  ${line}`);
      const value = await inner.ask(prompt, state);
      const view = renderPrompt(prompt as TerminalPrompt);
      const question = [view.lines[0], view.question.trimEnd()].filter((part) => part !== undefined && part !== '').join(' ');
      print(`${question} -> ${value === CANCEL ? '(cancel)' : showValue(JSON.stringify(value) ?? value)}`);
      return value;
    },
    progress: (update) => inner.progress?.(update),
    message: (text) => (inner.message ? inner.message(text) : print(text)),
  };
}
