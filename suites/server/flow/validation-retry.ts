// Suite `validation-retry` (MCP Flow, 000): the prompts the target's wizards send (types, choices,
// validation rules, defaults, progress), server-side validation of every rule a prompt shows
// (required, pattern, text length, number range and type, choices, confirm, dates), the shape of
// an accepted and of a rejected answer (accepted:false with error and suggestion, or -32004,
// C-15), the retry (re-prompt or kept prompt, corrected value accepted) and what a rejection must
// leave alone (history, accumulatedData, the current prompt). The cases walk every interactive
// tool discovery found and can only test the prompt types and rules those wizards reach; a rule
// no prompt shows is reported as INFO.
import { defineCase, TargetPreconditionError, type CaseContext, type ConformanceCase } from '../../../src/harness/index.js';
import { FLOW_ERROR } from '../../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import { checkErrorCode, openSession, requiresInteractiveTool, setupRequest, type Message } from '../../support/session.js';
import {
  checkFlowError,
  checkProblems,
  FLOW_EVENT_MS,
  getState,
  invalidValues,
  maybeFlowEvent,
  progressProblems,
  promptProblems,
  rejectionValidation,
  respond,
  respondOutcome,
  satisfies,
  satisfiesWhole,
  startInteraction,
  validValue,
  walkSession,
  type CurrentPrompt,
  type FlowEvent,
  type FlowSession,
  type InvalidProbe,
} from '../../support/flow.js';

const SUITE = 'validation-retry';

function tools(ctx: CaseContext): string[] {
  return ctx.discovery.interactiveTools ?? [];
}

/** Cancels a session the case is done with; the answer is suite cancellation's to judge, not this case's. */
async function cancelQuietly(ctx: CaseContext, sessionId: string): Promise<void> {
  try {
    await setupRequest(ctx, FLOW_METHOD.cancel, { sessionId, reason: 'conformance case cleanup' });
  } catch (error) {
    if (ctx.signal.aborted || !(error instanceof TargetPreconditionError)) throw error;
  }
}

/** Where a prompt sits, for messages. */
function where(toolName: string, current: CurrentPrompt): string {
  return `${toolName}: ${String(current.prompt.type)} prompt ${JSON.stringify(current.prompt.message)}`;
}

/**
 * Takes the re-prompt a rejection may bring (answered {acknowledged: true}); undefined when the
 * target keeps the current prompt without a new request (FLOW-RESPOND-4 reading 2). The first
 * rejection of a session waits a short while to learn which reading the target follows; later ones
 * wait only when it re-prompts, so a target that keeps the prompt costs one short wait per session.
 */
class Reprompts {
  #reprompts: boolean | undefined;
  constructor(
    private readonly ctx: CaseContext,
    private readonly session: FlowSession,
  ) {}

  async take(): Promise<FlowEvent | undefined> {
    const methods = [FLOW_METHOD.prompt, FLOW_METHOD.continue];
    if (this.#reprompts === false) return undefined;
    if (this.#reprompts === undefined) {
      const event = await maybeFlowEvent(this.ctx, this.session.sessionId, { methods });
      this.#reprompts = event !== undefined;
      return event;
    }
    return maybeFlowEvent(this.ctx, this.session.sessionId, { methods, timeoutMs: FLOW_EVENT_MS });
  }
}

/**
 * Walks every interactive tool; at each prompt sends the probes `select` picks, one by one, and
 * judges each with `judge`. A probe the target accepts moved the session on: the walk of that
 * tool stops there. Returns how many probes were sent.
 */
async function probeEveryPrompt(
  ctx: CaseContext,
  select: (probe: InvalidProbe, prompt: Message) => boolean,
  judge: (probe: InvalidProbe, answer: Message, place: string, session: FlowSession) => Promise<void> | void,
  reading?: ReadingProbe,
): Promise<number> {
  let sent = 0;
  let readingSeen = false;
  for (const toolName of tools(ctx)) {
    const session = await startInteraction(ctx, { toolName });
    const reprompts = new Reprompts(ctx, session);
    const walk = await walkSession(ctx, session, {
      async visit(current) {
        for (const probe of invalidValues(current.prompt).filter((p) => select(p, current.prompt))) {
          sent++;
          const answer = await respond(ctx, session, probe.value, probe.requirement);
          await judge(probe, answer, where(toolName, current), session);
          if (respondOutcome(answer) === 'accepted') return false;
          await reprompts.take();
        }
        const probe = readingSeen ? undefined : reading?.valueFor(current.prompt);
        if (reading && probe !== undefined) {
          readingSeen = true;
          const answer = await respond(ctx, session, probe, reading.requirement);
          const outcome = respondOutcome(answer);
          const place = where(toolName, current);
          if (outcome === 'accepted') {
            ctx.reading(reading.requirement, reading.ifAccepted, `${place}: ${JSON.stringify(probe)} is accepted`);
            return false; // the session moved on
          }
          if (outcome === 'rejected' || outcome === 'rejected-with-error') {
            ctx.reading(reading.requirement, reading.ifRejected, `${place}: ${JSON.stringify(probe)} is rejected${reading.rejectedToo ? `; ${reading.rejectedToo}` : ''}`);
            await reprompts.take();
          }
        }
        return true;
      },
    });
    if (walk.complete === undefined) await cancelQuietly(ctx, session.sessionId);
  }
  return sent;
}

/** Whether a text prompt's rules other than `required` let the empty string through (no minimum length, a pattern that matches it). */
function onlyRequiredRefusesEmpty(rules: Message): boolean {
  if (typeof rules.min === 'number' && rules.min > 0) return false;
  if (typeof rules.pattern !== 'string') return true;
  try {
    return new RegExp(rules.pattern, 'u').test('');
  } catch {
    return false;
  }
}

/** A value whose fate only tells which accepted reading (C-31) the target follows; reported as INFO. */
interface ReadingProbe {
  requirement: string;
  /** The value to send at this prompt, or undefined when the prompt cannot tell the readings apart. */
  valueFor: (prompt: Message) => unknown;
  /** The requirement's accepted reading (its number in `accepts`) an acceptance shows, and the one a rejection shows. */
  ifAccepted: number;
  ifRejected: number;
  /** What else a rejection may mean. */
  rejectedToo?: string;
}

/** Checks that an invalid value was refused, in either accepted form (C-15). */
function checkRejected(ctx: CaseContext, requirement: string, probe: InvalidProbe, answer: Message, place: string): boolean {
  const outcome = respondOutcome(answer);
  return ctx.check(requirement, outcome === 'rejected' || outcome === 'rejected-with-error', {
    message: `${place}: ${probe.description} is rejected (accepted:false, or -32004)`,
    expected: { result: { accepted: false, validation: { valid: false } } },
    actual: answer.result ?? answer.error,
  });
}

/**
 * FLOW-VALID-10 after a rejection: accumulatedData unchanged; the current prompt (by type: a
 * re-prompt may carry the error in its message) still current; history unchanged, or (reading 2)
 * grown by one turn that records the rejected value.
 */
function checkRejectionLeftAlone(ctx: CaseContext, place: string, probe: InvalidProbe, before: Message, after: Message): void {
  const history = (s: Message) => (Array.isArray(s.history) ? s.history : []);
  const [was, is] = [history(before), history(after)];
  const unchanged = JSON.stringify(is) === JSON.stringify(was);
  const last = is.at(-1);
  const recordsRejection =
    is.length === was.length + 1 && JSON.stringify(is.slice(0, was.length)) === JSON.stringify(was) && isRecord(last) && isRecord(last.response) && JSON.stringify(last.response.value) === JSON.stringify(probe.value);
  const promptType = (s: Message) => (isRecord(s.currentPrompt) ? s.currentPrompt.type : undefined);
  const keep = (s: Message) => ({ accumulatedData: s.accumulatedData, currentPromptType: promptType(s) });
  const ok = ctx.check('FLOW-VALID-10', (unchanged || recordsRejection) && JSON.stringify(keep(before)) === JSON.stringify(keep(after)), {
    message: `${place}: the rejected value leaves accumulatedData and the current prompt as they were, and history unchanged (or with one turn recording the rejection)`,
    expected: { ...keep(before), history: was },
    actual: { ...keep(after), history: is },
  });
  if (ok) ctx.reading('FLOW-VALID-10', recordsRejection ? 2 : 1, place);
  // FLOW-STATE-2's history counts turns the same way.
  if (ok && recordsRejection) ctx.reading('FLOW-STATE-2', 3, place);
}

/** One case per validation rule: every prompt showing the rule gets its probes. */
function ruleCase(options: { name: string; title: string; requirement: string; rule: string; reading?: ReadingProbe }): ConformanceCase {
  const { requirement } = options;
  return defineCase({
    id: `${SUITE}/${options.name}`,
    suite: SUITE,
    title: options.title,
    requirements: [requirement],
    applies: requiresInteractiveTool,
    timeLimitMs: 15_000,
    async run(ctx) {
      await openSession(ctx);
      const sent = await probeEveryPrompt(
        ctx,
        (probe) => probe.requirement === requirement,
        (probe, answer, place) => {
          checkRejected(ctx, requirement, probe, answer, place);
        },
        options.reading,
      );
      if (sent === 0) ctx.info(requirement, `no prompt of the target's interactive tools shows ${options.rule}; nothing to check`);
    },
  });
}

const required = ruleCase({
  name: 'required',
  title: 'with validation.required true, null is rejected, and an empty string where the prompt type cannot take one',
  requirement: 'FLOW-VALID-2',
  rule: 'validation.required',
  reading: {
    requirement: 'FLOW-VALID-2',
    // Only where no other rule refuses the empty string (no minimum length, a pattern it matches): then only `required` decides.
    valueFor: (prompt) => (prompt.type === 'text' && isRecord(prompt.validation) && prompt.validation.required === true && onlyRequiredRefusesEmpty(prompt.validation) ? '' : undefined),
    ifAccepted: 2,
    ifRejected: 1,
  },
});
const pattern = ruleCase({
  name: 'text-pattern',
  title: 'a text value the prompt\'s validation.pattern does not match (searched or as a whole) is rejected',
  requirement: 'FLOW-VALID-3',
  rule: 'a text validation.pattern',
  reading: {
    requirement: 'FLOW-VALID-3',
    // A valid value with a suffix the pattern does not cover: matched when searched, not as a whole.
    valueFor(prompt) {
      const rules = isRecord(prompt.validation) ? prompt.validation : {};
      if (prompt.type !== 'text' || typeof rules.pattern !== 'string') return undefined;
      const valid = validValue(prompt);
      if (typeof valid !== 'string') return undefined;
      for (const suffix of ['!', ' #', '@@', '~']) {
        const value = valid + suffix;
        const probe = { ...prompt, validation: { ...rules } };
        if (satisfies(probe, value) && !satisfiesWhole(probe, value)) return value;
      }
      return undefined;
    },
    ifAccepted: 1,
    ifRejected: 2,
  },
});
const textLength = ruleCase({
  name: 'text-length',
  title: 'a text value shorter than validation.min or longer than validation.max (code points) is rejected',
  requirement: 'FLOW-VALID-4',
  rule: 'text length bounds (validation.min/max on a text prompt)',
  reading: {
    requirement: 'FLOW-VALID-4',
    // max characters outside the BMP: max code points, but 2 * max UTF-16 code units.
    valueFor(prompt) {
      const rules = isRecord(prompt.validation) ? prompt.validation : {};
      if (prompt.type !== 'text' || typeof rules.max !== 'number' || !Number.isInteger(rules.max) || rules.max < 1 || rules.max > 500) return undefined;
      if (typeof rules.min === 'number' && rules.min > rules.max) return undefined;
      const value = '\u{1F600}'.repeat(rules.max);
      if (typeof rules.pattern === 'string') {
        try {
          if (!new RegExp(rules.pattern, 'u').test(value)) return undefined;
        } catch {
          return undefined;
        }
      }
      return value;
    },
    ifAccepted: 1,
    ifRejected: 2,
    rejectedToo: 'or the target refuses these characters',
  },
});
const numberRange = ruleCase({
  name: 'number-range',
  title: 'a number below validation.min or above validation.max is rejected',
  requirement: 'FLOW-VALID-5',
  rule: 'a number prompt with validation.min/max',
});
const numberType = ruleCase({
  name: 'number-type',
  title: 'a number prompt rejects a value that is not a number',
  requirement: 'FLOW-VALID-6',
  rule: 'a number prompt',
  reading: {
    requirement: 'FLOW-VALID-6',
    valueFor: (prompt) => (prompt.type === 'number' && typeof validValue(prompt) === 'number' ? String(validValue(prompt)) : undefined),
    ifAccepted: 2,
    ifRejected: 1,
  },
});
const choice = ruleCase({
  name: 'choice',
  title: 'a choice prompt rejects a value that is not one of its choices',
  requirement: 'FLOW-VALID-7',
  rule: 'a choice prompt',
});
const confirm = ruleCase({
  name: 'confirm',
  title: 'a confirm prompt rejects a value that is not a boolean (nor a boolean word)',
  requirement: 'FLOW-VALID-8',
  rule: 'a confirm prompt',
  reading: {
    requirement: 'FLOW-VALID-8',
    valueFor: (prompt) => (prompt.type === 'confirm' ? 'yes' : undefined),
    ifAccepted: 2,
    ifRejected: 1,
  },
});
const date = ruleCase({
  name: 'date',
  title: 'a date prompt rejects an impossible date and a date not in YYYY-MM-DD form',
  requirement: 'FLOW-VALID-9',
  rule: 'a date prompt',
});

const serverSide = defineCase({
  id: `${SUITE}/server-side`,
  suite: SUITE,
  title: 'the server validates every value itself: the first invalid value of each prompt, sent directly on the wire, is rejected',
  requirements: ['FLOW-VALID-1'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const firstOf = new Set<Message>();
    const sent = await probeEveryPrompt(
      ctx,
      (_probe, prompt) => (firstOf.has(prompt) ? false : (firstOf.add(prompt), true)),
      (probe, answer, place) => {
        checkRejected(ctx, 'FLOW-VALID-1', probe, answer, place);
      },
    );
    if (sent === 0) ctx.info('FLOW-VALID-1', 'no prompt of the target shows a rule an invalid value could break (file and custom prompts have none)');
  },
});

/** The prompt rules promptProblems judges (MUSTs of 000's examples and the profile's recommendations, C-33). */
const PROMPT_RULES = ['FLOW-PROMPT-3', 'FLOW-PROMPT-4', 'FLOW-PROMPT-5', 'FLOW-PROMPT-6', 'FLOW-PROMPT-7', 'FLOW-PROMPT-8', 'FLOW-PROMPT-15'];
/** The progress rules progressProblems judges. */
const PROGRESS_RULES = ['FLOW-PROMPT-10', 'FLOW-PROMPT-15'];

const promptShapes = defineCase({
  id: `${SUITE}/prompt-shapes`,
  suite: SUITE,
  title: 'every prompt has a known type and a message; choices, validation rules, patterns, defaults, dates and progress are well-formed',
  requirements: ['FLOW-PROMPT-3', 'FLOW-PROMPT-4', 'FLOW-PROMPT-5', 'FLOW-PROMPT-6', 'FLOW-PROMPT-7', 'FLOW-PROMPT-8', 'FLOW-PROMPT-10', 'FLOW-PROMPT-15', 'FLOW-PROMPT-9'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const types = new Set<string>();
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      checkProblems(ctx, PROGRESS_RULES, progressProblems(session.start.progress), `the interaction.start progress of ${toolName}`, session.start.progress);
      await walkSession(ctx, session, {
        visit(current) {
          const place = where(toolName, current);
          types.add(String(current.prompt.type));
          checkProblems(ctx, PROMPT_RULES, promptProblems(current.prompt), place, current.prompt);
          if (current.event) checkProblems(ctx, PROGRESS_RULES, progressProblems(current.event.params.progress), `the progress of ${place}`, current.event.params.progress);
        },
        onEvent(event) {
          if (event.prompt === undefined) checkProblems(ctx, PROGRESS_RULES, progressProblems(event.params.progress), `the progress of an ${event.method} for ${toolName}`, event.params.progress);
        },
      });
    }
    const open = [...types].filter((t) => t === 'file' || t === 'custom');
    ctx.info('FLOW-PROMPT-9', open.length > 0 ? `the target sends ${open.join(' and ')} prompts; only their type and message are checked` : `the target's prompts are of types ${[...types].join(', ')}`);
  },
});

const acceptedResult = defineCase({
  id: `${SUITE}/accepted-result`,
  suite: SUITE,
  title: 'a value that satisfies the current prompt is answered {"accepted": true, "validation": {"valid": true}} (or without validation)',
  requirements: ['FLOW-RESPOND-2'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const reported = new Set<number>();
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      await walkSession(ctx, session, {
        onTurn(turn) {
          const result = isRecord(turn.answer.result) ? turn.answer.result : undefined;
          const withoutValidation = result?.validation === undefined;
          const ok = ctx.check('FLOW-RESPOND-2', result?.accepted === true && (withoutValidation || (isRecord(result.validation) && result.validation.valid === true)), {
            message: `${toolName}: the valid value ${JSON.stringify(turn.value)} is answered accepted:true (with validation.valid true when validation is given)`,
            expected: { accepted: true, validation: { valid: true } },
            actual: turn.answer.result ?? turn.answer.error,
          });
          const reading = withoutValidation ? 2 : 1;
          if (ok && !reported.has(reading)) {
            reported.add(reading);
            ctx.reading('FLOW-RESPOND-2', reading, `${toolName}: the first value accepted so`);
          }
        },
      });
    }
  },
});

/** The rules whose broken value the server can say how to fix (FLOW-VALID-13): a pattern, the choices, the date form. */
const SUGGESTIBLE = ['FLOW-VALID-3', 'FLOW-VALID-7', 'FLOW-VALID-9'];

const rejectionAndRetry = defineCase({
  id: `${SUITE}/rejection-and-retry`,
  suite: SUITE,
  title: 'a rejected value gets accepted:false with an error (and a suggestion), changes nothing, and the corrected value is accepted',
  requirements: ['FLOW-RESPOND-3', 'FLOW-RESPOND-4', 'FLOW-VALID-10', 'FLOW-VALID-13', 'FLOW-ERR-1', 'FLOW-ERR-2', 'FLOW-STATE-2'],
  applies: requiresInteractiveTool,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    let retried = 0;
    for (const toolName of tools(ctx)) {
      const session = await startInteraction(ctx, { toolName });
      const walk = await walkSession(ctx, session, {
        async visit(current) {
          const probes = invalidValues(current.prompt);
          // A value whose fix the server can name (pattern, choice, date) where the prompt has one, so that FLOW-VALID-13 is judged.
          const probe = probes.find((p) => SUGGESTIBLE.includes(p.requirement)) ?? probes[0];
          if (probe === undefined) return true;
          retried++;
          const place = where(toolName, current);
          const before = await getState(ctx, session.sessionId, 'FLOW-VALID-10');
          const answer = await respond(ctx, session, probe.value, 'FLOW-RESPOND-3');
          const outcome = respondOutcome(answer);
          const validation = rejectionValidation(answer);
          if (outcome === 'rejected-with-error') {
            ctx.reading('FLOW-RESPOND-3', 2, place);
            checkFlowError(ctx, answer, { requirement: 'FLOW-RESPOND-3', codes: [FLOW_ERROR.VALIDATION_FAILED], what: `${place}: ${probe.description}`, sessionId: session.sessionId, also: ['FLOW-ERR-1', 'FLOW-ERR-2'] });
          } else {
            ctx.check('FLOW-RESPOND-3', outcome === 'rejected' && validation?.valid === false && typeof validation.error === 'string' && (validation.suggestion === undefined || typeof validation.suggestion === 'string'), {
              message: `${place}: ${probe.description} is answered {"accepted": false, "validation": {"valid": false, "error": <string>, "suggestion"?: <string>}}`,
              actual: answer.result ?? answer.error,
            });
            if (outcome === 'accepted') return false;
            if (outcome === 'rejected') ctx.reading('FLOW-RESPOND-3', 1, place);
          }
          if (SUGGESTIBLE.includes(probe.requirement) && validation !== undefined) {
            ctx.check('FLOW-VALID-13', typeof validation.suggestion === 'string' && validation.suggestion !== '', {
              message: `${place}: the rejection of ${probe.description} suggests how to fix the value`,
              actual: validation,
            });
          }
          const reprompt = await new Reprompts(ctx, session).take();
          ctx.reading('FLOW-RESPOND-4', reprompt ? 1 : 2, reprompt ? `${place}: a new ${reprompt.method}` : place);
          if (reprompt?.prompt !== undefined) {
            ctx.check('FLOW-RESPOND-4', reprompt.prompt.type === current.prompt.type, {
              message: `${place}: the re-prompt is a prompt of the same type`,
              expected: current.prompt,
              actual: reprompt.prompt,
            });
            if (reprompt.prompt.message !== current.prompt.message) ctx.info('FLOW-RESPOND-4', `${place}: the re-prompt's message carries the error: ${JSON.stringify(reprompt.prompt.message)}`);
          }
          const after = await getState(ctx, session.sessionId, 'FLOW-VALID-10');
          checkRejectionLeftAlone(ctx, place, probe, before, after);
          const corrected = await respond(ctx, session, validValue(current.prompt), 'FLOW-RESPOND-4');
          ctx.check('FLOW-RESPOND-4', respondOutcome(corrected) === 'accepted', {
            message: `${place}: after the rejection the corrected value is accepted (the session still waits for the same prompt)`,
            actual: corrected.result ?? corrected.error,
          });
          return false; // the session moved on with the corrected value; one retry per tool
        },
      });
      if (walk.complete === undefined) await cancelQuietly(ctx, session.sessionId);
    }
    if (retried === 0) {
      for (const requirement of ['FLOW-RESPOND-3', 'FLOW-RESPOND-4', 'FLOW-VALID-10']) ctx.info(requirement, 'no prompt of the target has a rule an invalid value could break');
    }
  },
});

const respondInvalidParams = defineCase({
  id: `${SUITE}/respond-invalid-params`,
  suite: SUITE,
  title: 'interaction.respond without a response object (or with a string) is -32602; without response.value it is -32602, or judged as a missing answer',
  requirements: ['FLOW-RESPOND-7'],
  applies: requiresInteractiveTool,
  sendsInvalid: true,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    const walk = await walkSession(ctx, session, {
      async visit(current) {
        const probes: [string, Message][] = [
          ['no response', { sessionId: session.sessionId }],
          ['a string response', { sessionId: session.sessionId, response: 'yes' }],
        ];
        for (const [what, params] of probes) {
          const answer = await ctx.request('FLOW-RESPOND-7', FLOW_METHOD.respond, params);
          checkErrorCode(ctx, 'FLOW-RESPOND-7', answer, -32602, `interaction.respond with ${what}`);
        }
        // Last, as it may move the session on: no value is -32602, or (reading 2) a missing answer the prompt's rules judge.
        const answer = await ctx.request('FLOW-RESPOND-7', FLOW_METHOD.respond, { sessionId: session.sessionId, response: { timestamp: Date.now() } });
        if (answer === undefined) return false;
        const outcome = respondOutcome(answer);
        const required = isRecord(current.prompt.validation) && current.prompt.validation.required === true;
        const judged = outcome === 'rejected' || outcome === 'rejected-with-error' || (outcome === 'accepted' && !required);
        if (judged) {
          ctx.reading('FLOW-RESPOND-7', 2, outcome);
          return false;
        }
        if (checkErrorCode(ctx, 'FLOW-RESPOND-7', answer, -32602, 'interaction.respond with a response without value (or it is judged as a missing answer)')) {
          ctx.reading('FLOW-RESPOND-7', 1);
        }
        return false;
      },
    });
    if (walk.complete === undefined) await cancelQuietly(ctx, session.sessionId);
  },
});

export const cases: readonly ConformanceCase[] = [
  promptShapes,
  acceptedResult,
  rejectionAndRetry,
  serverSide,
  required,
  pattern,
  textLength,
  numberRange,
  numberType,
  choice,
  confirm,
  date,
  respondInvalidParams,
];
