// Stateless mode (000 Appendix B, C-19): the session lives in an HMAC-signed base64url token
// that is the sessionId; a token with any changed byte is refused.
import { describe, expect, it } from 'vitest';
import { decodeToken, encodeToken, FlowOptionsError, flowExtension, TokenRejectedError } from '../../../../src/peer/server/flow/index.js';
import { answer, latestSessionId, schemaIssues, testServer } from './harness.js';

const secret = 'a-test-secret-of-at-least-32-bytes!!';
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

describe('stateless tokens', () => {
  it('round-trips and refuses a wrong secret, a changed state and a non-canonical encoding', () => {
    const token = encodeToken(secret, { sessionId: 's1', state: { state: 'idle', n: 1 } });
    expect(decodeToken(secret, token)).toEqual({ sessionId: 's1', state: { state: 'idle', n: 1 } });
    expect(() => decodeToken('another-secret-of-at-least-32-bytes!', token)).toThrow(TokenRejectedError);
    const forged = Buffer.from(Buffer.from(token, 'base64url').toString('utf8').replace('"n":1', '"n":2')).toString('base64url');
    expect(() => decodeToken(secret, forged)).toThrow(expect.objectContaining({ problem: 'bad-signature' }));
    expect(() => decodeToken(secret, `${token}=`)).toThrow(expect.objectContaining({ problem: 'not-base64url' }));
    expect(() => decodeToken(secret, 'bm90IGpzb24')).toThrow(expect.objectContaining({ problem: 'not-json' }));
  });

  it("in the 'segments' form (FLOW-STATELESS-2 reading 2) writes two base64url segments joined by a dot, and refuses any changed byte", () => {
    const token = encodeToken(secret, { sessionId: 's1', state: { state: 'idle', n: 1 } }, 'segments');
    const [content, signature, ...rest] = token.split('.');
    expect(rest).toEqual([]);
    expect(JSON.parse(Buffer.from(content!, 'base64url').toString('utf8'))).toEqual({ sessionId: 's1', state: { state: 'idle', n: 1 } });
    expect(decodeToken(secret, token, { form: 'segments' })).toEqual({ sessionId: 's1', state: { state: 'idle', n: 1 } });
    const forged = `${Buffer.from(Buffer.from(content!, 'base64url').toString('utf8').replace('"n":1', '"n":2')).toString('base64url')}.${signature}`;
    expect(() => decodeToken(secret, forged, { form: 'segments' })).toThrow(expect.objectContaining({ problem: 'bad-signature' }));
    expect(() => decodeToken(secret, `${token}.x`, { form: 'segments' })).toThrow(expect.objectContaining({ problem: 'wrong-shape' }));
    expect(() => decodeToken(secret, token)).toThrow(expect.objectContaining({ problem: 'not-base64url' }));
    // The one-string form's signature member is not taken in the segments form.
    const single = encodeToken(secret, { sessionId: 's1', state: { state: 'idle', n: 1 } });
    expect(() => decodeToken(secret, `${single}.${signature}`, { form: 'segments' })).toThrow(TokenRejectedError);
  });

  it('needs a secret of at least 32 bytes and a known token form', () => {
    expect(() => flowExtension({ stateless: { secret: 'short' } })).toThrow(FlowOptionsError);
    expect(() => flowExtension({ stateless: { secret, form: 'jwt' as never } })).toThrow(FlowOptionsError);
  });
});

describe('stateless mode', () => {
  it('runs a wizard with the token as sessionId and keeps no session state', async () => {
    const server = testServer({ stateless: { secret } });
    const conn = server.connect();
    expect((await conn.call('capabilities')).features).toMatchObject({ statefulSessions: false });
    const start = await conn.call('interaction.start', { toolName: 'booking' });
    const token = start.sessionId as string;
    expect(schemaIssues('flow/stateless-token-string.payload', token)).toEqual([]);
    expect(schemaIssues('flow/stateless-token.payload', JSON.parse(Buffer.from(token, 'base64url').toString('utf8')))).toEqual([]);
    expect(server.ext.engine.sessionCount).toBe(0);

    let current = token;
    for (const value of ['Lisbon', '2030-05-17', 2, 'economy', true]) {
      expect(await answer(server, conn, current, value)).toMatchObject({ accepted: true });
      current = latestSessionId(conn, current);
    }
    const [complete] = conn.requests('interaction.complete');
    expect(complete?.result).toMatchObject({ success: true, data: { destination: 'Lisbon', class: 'economy' } });
    const state = await conn.call('interaction.getState', { sessionId: complete?.sessionId });
    expect(state.state).toBe('completed');
    expect((state.history as unknown[]).length).toBe(5);
    expect(server.ext.engine.sessionCount).toBe(0);
    expect(conn.problems).toEqual([]);

    // The first token's session finished: its old waiting_user token no longer gets answers accepted.
    expect((await conn.error('interaction.respond', { sessionId: token, response: { value: 'Rome' } })).code).toBe(-32003);
  });

  it('refuses a token with any changed character (FLOW-STATELESS-4)', async () => {
    const server = testServer({ stateless: { secret } });
    const conn = server.connect();
    const token = (await conn.call('interaction.start', { toolName: 'booking' })).sessionId as string;
    expect((await conn.call('interaction.getState', { sessionId: token })).state).toBe('waiting_user');
    const codes = new Set<number>();
    for (let i = 0; i < token.length; i++) {
      const replacement = BASE64URL[(BASE64URL.indexOf(token[i] as string) + 1) % 64] as string;
      const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
      const error = await conn.error('interaction.getState', { sessionId: tampered });
      codes.add(error.code);
      expect(error.data).toEqual({ sessionId: tampered });
    }
    expect([...codes]).toEqual([-32001]);
  });

  it('answers an expired token with -32002 (FLOW-STATELESS-6)', async () => {
    const server = testServer({ stateless: { secret } });
    const conn = server.connect();
    const token = (await conn.call('interaction.start', { toolName: 'booking', timeout: 1000 })).sessionId as string;
    server.clock.advance(1000);
    expect((await conn.error('interaction.respond', { sessionId: token, response: { value: 'Rome' } })).code).toBe(-32002);
  });

  it('refuses tokens of a cancelled session and tokens from another connection', async () => {
    const server = testServer({ stateless: { secret } });
    const conn = server.connect();
    const token = (await conn.call('interaction.start', { toolName: 'booking' })).sessionId as string;
    expect((await server.connect().error('interaction.getState', { sessionId: token })).code).toBe(-32001);
    expect(await conn.call('interaction.cancel', { sessionId: token })).toEqual({ cancelled: true });
    expect((await conn.error('interaction.respond', { sessionId: token, response: { value: 'Rome' } })).code).toBe(-32006);
    expect((await conn.error('interaction.cancel', { sessionId: token })).code).toBe(-32006);
    expect((await conn.call('interaction.getState', { sessionId: token })).state).toBe('cancelled');
  });
});
