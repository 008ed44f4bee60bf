// The MCP Flow engine's side of the conversation: the requests it sends to the client. A step
// becomes the current prompt and goes out as interaction.prompt (or interaction.continue with
// nextPrompt); an announcement goes out as interaction.continue; the last answer completes the
// session with one interaction.complete (FLOW-SM-6, -7), its export file inline or on an
// execution stream (C-32). A client that refuses or never acknowledges a prompt fails the session.
import { isTerminal } from '../../../protocol/flow-session.js';
import { FLOW_METHOD } from '../../../protocol/methods.js';
import type { ActiveFaults, RequestContext } from '../extension.js';
import type { EnginePrompt } from './answers.js';
import type { BackgroundWork } from './background.js';
import { openExportStream } from './export-stream.js';
import { COMPLETE_RESULT_REWRITES, PROGRESS_REWRITES, SENT_PROMPT_REWRITES } from './fault-hooks.js';
import type { ResolvedFlowOptions } from './options.js';
import { nextTarget, progressFor, renderExport, renderPrompt, renderResult, stepById, type Progress } from './session.js';
import { transition } from './session-errors.js';
import type { LiveSession, SessionTable } from './session-table.js';
import { COMPLETE_TARGET, type WizardStep } from './wizard.js';

type Params = Record<string, unknown>;

function isObject(value: unknown): value is Params {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export class Prompter {
  readonly #options: ResolvedFlowOptions;
  readonly #table: SessionTable;
  readonly #work: BackgroundWork;

  constructor(options: ResolvedFlowOptions, table: SessionTable, work: BackgroundWork) {
    this.#options = options;
    this.#table = table;
    this.#work = work;
  }

  /** The prompt as sent, with the prompt-shape faults applied. */
  asSent(prompt: EnginePrompt, faults: ActiveFaults): EnginePrompt {
    const sent = structuredClone(prompt);
    // Rule 4: a member 000 does not name is noted, not failed.
    if (this.#options.extensionMembers) (sent as EnginePrompt & { _meta?: unknown })._meta = { 'mcp-flow-conformance/readings': 'alternate' };
    return faults.rewrite(SENT_PROMPT_REWRITES, sent);
  }

  /** The progress object for `step`, with the progress faults applied. */
  progress(live: LiveSession, step: WizardStep, message?: string): Progress {
    return live.ctx.faults.rewrite(PROGRESS_REWRITES, progressFor(live.wizard, live.record, step, message));
  }

  /** A request to the client over the session's connection. */
  async request(live: LiveSession, method: string, params: Params): Promise<unknown> {
    const timeoutMs = this.#options.clientRequestTimeoutMs;
    return live.ctx.sendRequest(method, params, timeoutMs === undefined ? {} : { timeoutMs });
  }

  /**
   * Makes `step` the current prompt and sends it: interaction.prompt, or interaction.continue with
   * nextPrompt when the step says so. A re-prompt (after a rejected value) carries the error.
   */
  async present(live: LiveSession, step: WizardStep, reprompt?: { error: string }, first = false): Promise<void> {
    const record = live.record;
    const faults = live.ctx.faults;
    const prompt = renderPrompt(step, record);
    if (reprompt !== undefined) prompt.error = reprompt.error;
    const sent = this.asSent(prompt, faults);
    // FLOW-START-8 reading 2: the first prompt may come as interaction.continue with nextPrompt.
    const viaContinue = reprompt === undefined && (step.delivery === 'continue' || (first && this.#options.firstPromptVia === 'continue'));
    const sessionId = this.#table.publicId(live);
    if (reprompt === undefined) {
      record.stepId = step.id;
      if (viaContinue && faults.has('continue-prompt-not-current')) {
        record.currentPrompt = null;
      } else {
        transition(this.#options, record, 'prompt', faults, sessionId);
        record.currentPrompt = sent;
      }
    }
    // A re-prompt carries the error but the current prompt stays as it was (FLOW-VALID-10).
    record.promptCount++;
    this.#table.touch(live);
    const epoch = live.epoch;
    const progress = this.progress(live, step);
    const id = this.#table.publicId(live);
    const method = viaContinue ? FLOW_METHOD.continue : FLOW_METHOD.prompt;
    const params: Params = viaContinue ? { sessionId: id, nextPrompt: sent, progress } : { sessionId: id, prompt: sent, progress };
    if (viaContinue && faults.has('continue-without-session-id')) delete params.sessionId;
    // C-11 reading 3 sends interaction.continue as a notification; FAULT prompt-as-notification does so with interaction.prompt.
    if ((viaContinue && this.#options.continueAsNotification) || (!viaContinue && faults.has('prompt-as-notification'))) {
      await live.ctx.sendNotification(method, params);
      return;
    }
    try {
      await this.request(live, method, params);
    } catch {
      // The client refused or never acknowledged the prompt: the session cannot go on.
      if (live.epoch === epoch && record.state === 'waiting_user' && record.stepId === step.id) this.#table.fail(live);
    }
  }

  /** Goes on after `answered` (null: the first step): the next prompt, or the completion. */
  async advance(live: LiveSession, answered: WizardStep | null): Promise<void> {
    const epoch = live.epoch;
    const first = live.wizard.steps[0] as WizardStep;
    const target = answered === null ? first.id : nextTarget(live.wizard, answered, live.record.accumulatedData);
    if (target === COMPLETE_TARGET) return this.#complete(live);
    const step = stepById(live.wizard, target) as WizardStep;
    if (step.announce !== undefined) {
      const progress = this.progress(live, step, step.announce);
      try {
        const params: Params = { sessionId: this.#table.publicId(live), progress };
        if (live.ctx.faults.has('continue-without-session-id')) delete params.sessionId;
        if (this.#options.continueAsNotification) await live.ctx.sendNotification(FLOW_METHOD.continue, params);
        else await this.request(live, FLOW_METHOD.continue, params);
      } catch {
        if (live.epoch === epoch) this.#table.fail(live);
        return;
      }
      if (live.epoch !== epoch || isTerminal(live.record.state)) return; // FLOW-CANCEL-5
    }
    await this.present(live, step, undefined, answered === null);
  }

  /** FLOW-SM-6, FLOW-SM-7: completed, then one interaction.complete with the rendered result. */
  async #complete(live: LiveSession): Promise<void> {
    const record = live.record;
    const faults = live.ctx.faults;
    const lastPrompt = record.history.at(-1)?.prompt ?? null;
    transition(this.#options, record, 'complete', faults, record.id);
    record.stepId = null;
    record.currentPrompt = faults.has('current-prompt-after-complete') ? lastPrompt : null;
    this.#table.finish(live);
    const rendered = renderResult(live.wizard, record);
    let data = rendered.data;
    const file = live.export?.file ?? renderExport(live.wizard, record.accumulatedData, record.params);
    if (file !== undefined) {
      const stream = live.export?.stream;
      // C-32: a streamed file is named by its stream (the ref/stream item went in the respond result); otherwise it is inline.
      const body = stream === undefined ? { content: file.bytes.toString('utf8') } : { stream: { requestId: stream.requestId, streamTag: stream.streamTag } };
      data = {
        ...(isObject(data) ? data : { value: data }),
        file: { name: file.fileName, mimeType: file.mimeType, rows: file.rows, size: file.bytes.length, ...body },
      };
    }
    const sessionId = this.#table.publicId(live);
    const result = faults.rewrite(COMPLETE_RESULT_REWRITES, { success: true, data });
    const params = rendered.summary === undefined ? { sessionId, result } : { sessionId, result, summary: rendered.summary };
    // FAULT complete-twice (FLOW-SM-6): the second goes out right behind the first, before the client
    // could have answered it (and ended its session), so that it is on the wire whatever the client does next.
    const sends = faults.has('complete-twice') ? 2 : 1;
    const answers = await Promise.allSettled(Array.from({ length: sends }, () => this.request(live, FLOW_METHOD.complete, params)));
    // The session is complete whatever the client answered.
    for (const answer of answers) if (answer.status === 'fulfilled') live.completion = answer.value;
    if (faults.has('prompt-after-complete') && lastPrompt !== null) {
      await this.request(live, FLOW_METHOD.prompt, { sessionId, prompt: lastPrompt }).catch(() => undefined);
    }
  }

  /** Renders the export and opens its stream on the request `ctx` answers: the ref/stream items to announce, if streamed. */
  async exportOn(live: LiveSession, ctx: RequestContext): Promise<unknown[] | undefined> {
    const file = renderExport(live.wizard, live.record.accumulatedData, live.record.params);
    if (file === undefined) return undefined;
    live.export = { file };
    // FAULT export-inline-on-webtransport (WT-EXEC-10): no execution stream, the file stays inline.
    if (ctx.faults.has('export-inline-on-webtransport')) return undefined;
    const stream = await openExportStream(ctx, file);
    if (stream === undefined) return undefined;
    live.export.stream = stream;
    this.#work.track(stream.done);
    return [stream.item];
  }
}
