// Stateless-mode session tokens (000 Appendix B, profile C-19): the token is the sessionId the
// client sends back, base64url of the canonical JSON {sessionId, state, signature}, where the
// signature is HMAC-SHA256 over the canonical JSON of {sessionId, state} (the whole state,
// FLOW-STATELESS-3). Any changed byte is refused (FLOW-STATELESS-4): the token must be exactly the
// encoding the server would produce for what it decodes to, and the signature must match.
// The 'segments' form (FLOW-STATELESS-2 reading 2) writes the same content as two base64url
// segments joined by a dot, as a JWT does: base64url of the canonical JSON {sessionId, state},
// then the signature. It is no single base64 string, so a client cannot read it as one.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a token was refused. */
export type TokenProblem = 'not-base64url' | 'not-json' | 'wrong-shape' | 'not-canonical' | 'bad-signature';

export class TokenRejectedError extends Error {
  readonly code = 'TOKEN_REJECTED';
  readonly problem: TokenProblem;
  constructor(problem: TokenProblem) {
    super(`stateless session token refused: ${problem}`);
    this.name = 'TokenRejectedError';
    this.problem = problem;
  }
}

/** JSON with object keys sorted at every level, so that signing does not depend on key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item === undefined ? null : item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function sign(secret: Uint8Array | string, sessionId: string, state: unknown): string {
  return createHmac('sha256', secret).update(canonicalJson({ sessionId, state })).digest('base64url');
}

export interface TokenContent<S> {
  sessionId: string;
  state: S;
}

/** Signs a session state into a token. */
/** How a token is written: one base64url string (recommended), or two base64url segments joined by a dot. */
export type TokenForm = 'base64url' | 'segments';
export const TOKEN_FORMS: readonly TokenForm[] = ['base64url', 'segments'];

export function encodeToken<S>(secret: Uint8Array | string, content: TokenContent<S>, form: TokenForm = 'base64url'): string {
  const signature = sign(secret, content.sessionId, content.state);
  if (form === 'segments') return `${Buffer.from(canonicalJson({ sessionId: content.sessionId, state: content.state }), 'utf8').toString('base64url')}.${signature}`;
  return Buffer.from(canonicalJson({ sessionId: content.sessionId, state: content.state, signature }), 'utf8').toString('base64url');
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

/**
 * Decodes and checks a token; throws TokenRejectedError. With `verify: false` the signature is
 * not checked (only the mock server's accept-tampered-token fault does that).
 */
export function decodeToken<S>(secret: Uint8Array | string, token: string, options: { verify?: boolean; form?: TokenForm } = {}): TokenContent<S> {
  const verify = options.verify ?? true;
  let encoded = token;
  let detached: string | undefined;
  if (options.form === 'segments') {
    const segments = token.split('.');
    if (segments.length !== 2) throw new TokenRejectedError('wrong-shape');
    [encoded, detached] = segments as [string, string];
  }
  if (!BASE64URL.test(encoded)) throw new TokenRejectedError('not-base64url');
  const bytes = Buffer.from(encoded, 'base64url');
  if (verify && bytes.toString('base64url') !== encoded) throw new TokenRejectedError('not-canonical');
  let decoded: unknown;
  const text = bytes.toString('utf8');
  try {
    decoded = JSON.parse(text);
  } catch {
    throw new TokenRejectedError('not-json');
  }
  if (decoded === null || typeof decoded !== 'object' || Array.isArray(decoded)) throw new TokenRejectedError('wrong-shape');
  const fields = decoded as Record<string, unknown>;
  const { sessionId, state } = fields;
  // One string: the signature is a member; segments: it is the second segment, and the content has no such member.
  const signature = detached === undefined ? fields['signature'] : 'signature' in fields ? undefined : detached;
  if (typeof sessionId !== 'string' || typeof signature !== 'string' || state === null || typeof state !== 'object') {
    throw new TokenRejectedError('wrong-shape');
  }
  if (verify) {
    if (canonicalJson(decoded) !== text) throw new TokenRejectedError('not-canonical');
    const expected = Buffer.from(sign(secret, sessionId, state), 'utf8');
    const given = Buffer.from(signature, 'utf8');
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw new TokenRejectedError('bad-signature');
  }
  return { sessionId, state: state as S };
}
