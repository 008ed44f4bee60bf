// Suite `injection`, MCP Flow part: session ids used where they do not belong. A session id of
// another connection (FLOW-SEC-4, reported), and stateless tokens (000 Appendix B, C-19) that were
// tampered with (any changed byte refused), left unchanged (served), or expired (-32002).
import fc from 'fast-check';
import { defineCase, TargetPreconditionError, type Applicability, type CaseContext, type ConformanceCase, type Discovery } from '../../../src/harness/index.js';
import { FLOW_ERROR, JSONRPC_ERROR } from '../../../src/protocol/error-codes.js';
import { FLOW_METHOD } from '../../../src/protocol/methods.js';
import { isRecord } from '../../../src/wire/index.js';
import { openSideSession } from '../../support/fastworkflow.js';
import { errorOf, openSession, requiresInteractiveTool, type Message } from '../../support/session.js';
import { declaresStatelessMode, firstPrompt, startInteraction } from '../../support/flow.js';
import { reportForeignSessionAccess } from './session-security.js';

const SUITE = 'injection';

/** The inactivity timeout the expired-token case asks for, in ms (server time). */
export const TOKEN_TIMEOUT_MS = 1_000;

// ---- another connection's session ---------------------------------------------------------------

const otherConnection = defineCase({
  id: 'injection/flow-session-of-another-connection',
  suite: SUITE,
  title: 'interaction.getState naming a session started on another MCP session (connection) is refused with -32001, or served (reported, FLOW-SEC-4)',
  requirements: ['FLOW-SEC-4'],
  transports: ['http'],
  applies: requiresInteractiveTool,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx);
    await firstPrompt(ctx, session);
    const side = await openSideSession(ctx, 'the other connection');
    try {
      const { response } = await side.ask(FLOW_METHOD.getState, { sessionId: session.sessionId });
      if (response === undefined) throw new TargetPreconditionError('interaction.getState from the other connection was not answered', { requirement: 'FLOW-SEC-4' });
      reportForeignSessionAccess(ctx, response);
    } finally {
      await side.close();
    }
  },
});

// ---- stateless tokens ----------------------------------------------------------------------------

/** Applicability: MCP Flow with `features.statefulSessions: false` (C-19: how stateless mode is recognised). */
export function requiresStatelessMode(discovery: Discovery): Applicability {
  const interactive = requiresInteractiveTool(discovery);
  if (interactive !== true) return interactive;
  return declaresStatelessMode({ discovery })
    ? true
    : 'the target keeps session state (its capabilities do not say features.statefulSessions: false), so it issues no stateless tokens';
}

/** A token's base64 form, so that a changed byte can be written back the same way. */
interface TokenForm {
  alphabet: 'base64' | 'base64url';
  padded: boolean;
}

/** The token's base64 form, or undefined when the session id is not base64 (C-19: the token travels elsewhere). */
export function tokenForm(token: string): TokenForm | undefined {
  const padded = /=$/.test(token);
  let alphabet: TokenForm['alphabet'];
  if (/^[A-Za-z0-9_-]+={0,2}$/.test(token)) alphabet = 'base64url';
  else if (/^[A-Za-z0-9+/]+={0,2}$/.test(token)) alphabet = 'base64';
  else return undefined;
  const bytes = Buffer.from(token, alphabet);
  return bytes.length > 0 && encodeToken(bytes, { alphabet, padded }).replace(/=+$/, '') === token.replace(/=+$/, '') ? { alphabet, padded } : undefined;
}

function encodeToken(bytes: Uint8Array, form: TokenForm): string {
  const text = Buffer.from(bytes).toString(form.alphabet);
  if (form.alphabet === 'base64url') return form.padded ? text.padEnd(Math.ceil(text.length / 4) * 4, '=') : text;
  return form.padded ? text : text.replace(/=+$/, '');
}

/** One changed token and what was changed. */
interface Tampered {
  token: string;
  change: string;
}

/** Flips one bit of the decoded token. */
export function flipBit(token: string, form: TokenForm, byte: number, bit: number): string {
  const bytes = Buffer.from(token, form.alphabet);
  const at = byte % bytes.length;
  bytes[at] = (bytes[at] as number) ^ (1 << (bit % 8));
  return encodeToken(bytes, form);
}

/** A token's content as 000 Appendix B gives it: {sessionId, state, signature}, or undefined when it is not such JSON. */
function tokenContent(token: string, form: TokenForm): Record<string, unknown> | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(token, form.alphabet).toString('utf8'));
    return isRecord(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/** A signature as bytes where its text is hex or base64 (the same bytes may be spelled differently), else as it is. */
function signatureBytes(signature: unknown): string {
  if (typeof signature !== 'string') return JSON.stringify(signature);
  if (/^[0-9a-fA-F]+$/.test(signature) && signature.length % 2 === 0) return `hex:${signature.toLowerCase()}`;
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(signature)) return `b64:${Buffer.from(signature.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('hex')}`;
  return signature;
}

/**
 * Whether refusing `tampered` is undisputed (rule 5): the token no longer decodes to 000's
 * {sessionId, state, signature}, or one of those three means something else now. A change that
 * only spells the same signature bytes another way (hex case, base64 padding bits) or touches a
 * member outside the three may honestly be served, and is not judged.
 */
export function changesMeaning(token: string, tampered: string, form: TokenForm): boolean {
  const before = tokenContent(token, form);
  if (before === undefined) return true; // an opaque token: any changed byte changes the MAC or what it covers
  const after = tokenContent(tampered, form);
  if (after === undefined) return true;
  if (!['sessionId', 'state', 'signature'].every((key) => Object.hasOwn(after, key))) return true;
  if (JSON.stringify(after.sessionId) !== JSON.stringify(before.sessionId) || JSON.stringify(after.state) !== JSON.stringify(before.state)) return true;
  return signatureBytes(after.signature) !== signatureBytes(before.signature);
}

/** A different character of the same kind for a signature's first one: a digit for a letter and the other way round, so no spelling of the same bytes results. */
function otherSignatureStart(first: string): string {
  return /[0-9]/.test(first) ? 'z' : '7';
}

/**
 * Deterministic tamperings: the last byte changed; and, when the token decodes to a JSON object
 * (the {sessionId, state, signature} of 000 Appendix B), its signature changed and its state
 * changed with the signature left as it was.
 */
export function tamperings(token: string, form: TokenForm): Tampered[] {
  const bytes = Buffer.from(token, form.alphabet);
  const out: Tampered[] = [{ token: flipBit(token, form, bytes.length - 1, 0), change: 'the lowest bit of the last byte flipped' }];
  const decoded = tokenContent(token, form);
  if (decoded === undefined) return out;
  const reencode = (value: unknown): string => encodeToken(Buffer.from(JSON.stringify(value), 'utf8'), form);
  if (typeof decoded.signature === 'string' && decoded.signature.length > 0) {
    const signature = otherSignatureStart(decoded.signature[0] as string) + decoded.signature.slice(1);
    out.push({ token: reencode({ ...decoded, signature }), change: 'the first character of the signature changed' });
  }
  if (isRecord(decoded.state)) {
    const state = decoded.state;
    const changed = typeof state.state === 'string' ? { ...state, state: state.state === 'completed' ? 'active' : 'completed' } : { ...state, injected: true };
    out.push({ token: reencode({ ...decoded, state: changed }), change: 'the state changed, the signature kept' });
  }
  return out.filter((t) => changesMeaning(token, t.token, form));
}

/** What a server answered a tampered token: refused (with the code) or served. */
function judgeTampered(ctx: CaseContext, tampered: Tampered, answer: Message | undefined, seen: Set<unknown>): boolean {
  if (answer === undefined) return false;
  const error = errorOf(answer);
  const refused = error !== undefined;
  if (refused && !seen.has(error.code)) {
    seen.add(error.code);
    if (error.code === FLOW_ERROR.SESSION_NOT_FOUND || error.code === JSONRPC_ERROR.InvalidParams) {
      ctx.reading('FLOW-STATELESS-4', error.code === FLOW_ERROR.SESSION_NOT_FOUND ? 1 : 2, `a token with ${tampered.change}`, error);
    } else ctx.info('FLOW-STATELESS-4', `a tampered token is refused with error ${String(error.code)}`, error);
  }
  return ctx.check('FLOW-STATELESS-4', refused, {
    message: `a token with ${tampered.change} is refused, not served`,
    expected: { error: { code: [FLOW_ERROR.SESSION_NOT_FOUND, JSONRPC_ERROR.InvalidParams] } },
    actual: { token: tampered.token, answer },
  });
}

const tamperedToken = defineCase({
  id: 'injection/flow-stateless-token-tampered',
  suite: SUITE,
  title: 'a stateless session token (the sessionId, base64) is served unchanged, and refused with any changed byte: signature, state, or a random bit',
  requirements: ['FLOW-STATELESS-1', 'FLOW-STATELESS-2', 'FLOW-STATELESS-5', 'FLOW-STATELESS-4'],
  applies: requiresStatelessMode,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    ctx.info('FLOW-STATELESS-1', 'the target declares stateless mode (features.statefulSessions: false)');
    const session = await startInteraction(ctx);
    await firstPrompt(ctx, session);
    const token = session.sessionId;
    const form = tokenForm(token);
    if (form === undefined) {
      ctx.reading('FLOW-STATELESS-2', 2, 'the sessionId is not one base64 string; the token checks are skipped', token);
      return;
    }
    ctx.reading('FLOW-STATELESS-2', 1, `${form.alphabet}${form.padded ? ' with padding' : ''}`);
    const own = await ctx.request('FLOW-STATELESS-5', FLOW_METHOD.getState, { sessionId: token }, { what: 'interaction.getState with the unchanged token' });
    if (own === undefined) return;
    if (
      !ctx.check('FLOW-STATELESS-5', isRecord(own.result), {
        message: 'interaction.getState with the token the server issued, unchanged, is served',
        expected: 'a getState result',
        actual: own,
      })
    ) {
      return;
    }
    const seen = new Set<unknown>();
    for (const tampered of tamperings(token, form)) {
      const answer = await ctx.request('FLOW-STATELESS-4', FLOW_METHOD.getState, { sessionId: tampered.token }, { what: `interaction.getState with a token with ${tampered.change}` });
      judgeTampered(ctx, tampered, answer, seen);
    }
    const length = Buffer.from(token, form.alphabet).length;
    await ctx.property(
      'FLOW-STATELESS-4',
      fc.record({ byte: fc.nat({ max: length - 1 }), bit: fc.nat({ max: 7 }) }),
      async ({ byte, bit }) => {
        const tampered = { token: flipBit(token, form, byte, bit), change: `bit ${bit} of byte ${byte} flipped` };
        // Rule 5: only a flip that changes what the token says must be refused.
        if (!changesMeaning(token, tampered.token, form)) return true;
        const answer = await ctx.request('FLOW-STATELESS-4', FLOW_METHOD.getState, { sessionId: tampered.token }, { what: `interaction.getState with a token with ${tampered.change}` });
        return judgeTampered(ctx, tampered, answer, seen);
      },
      { numRuns: 30 },
    );
  },
});

const expiredToken = defineCase({
  id: 'injection/flow-stateless-token-expired',
  suite: SUITE,
  title: `a stateless token of a session started with timeout ${TOKEN_TIMEOUT_MS} ms and left inactive past it is answered -32002 SESSION_EXPIRED`,
  requirements: ['FLOW-STATELESS-6'],
  applies: requiresStatelessMode,
  sleeps: true,
  async run(ctx) {
    await openSession(ctx);
    const session = await startInteraction(ctx, { params: { timeout: TOKEN_TIMEOUT_MS } });
    const first = await firstPrompt(ctx, session);
    const idleSince = first.event?.received.at ?? Date.now();
    await ctx.sleep(Math.max(0, idleSince + TOKEN_TIMEOUT_MS - Date.now()) + ctx.scaled(1_000), 'the token to expire');
    const answer = await ctx.request('FLOW-STATELESS-6', FLOW_METHOD.getState, { sessionId: session.sessionId }, { what: 'interaction.getState with the expired token' });
    if (answer === undefined) return;
    ctx.check('FLOW-STATELESS-6', errorOf(answer)?.code === FLOW_ERROR.SESSION_EXPIRED, {
      message: 'the expired token is answered -32002 SESSION_EXPIRED',
      expected: { error: { code: FLOW_ERROR.SESSION_EXPIRED } },
      actual: answer,
    });
  },
});

export const cases: readonly ConformanceCase[] = [otherConnection, tamperedToken, expiredToken];
