// Each shipped wizard completed end to end through the engine's handlers, with every message
// checked against the project's schemas.
import { describe, expect, it } from 'vitest';
import { findIllegalObservation, type InteractionState } from '../../../../src/protocol/flow-session.js';
import { answer, testServer } from './harness.js';

describe('booking wizard (initialPrompt, branching, interaction.continue)', () => {
  it('runs from interaction.start to interaction.complete', async () => {
    const server = testServer();
    const conn = server.connect();
    const start = await conn.call('interaction.start', { toolName: 'booking' });
    expect(start.state).toBe('waiting_user');
    expect(start.initialPrompt).toMatchObject({ type: 'text', message: 'Enter destination:', validation: { required: true } });
    const sessionId = start.sessionId as string;
    const states: InteractionState[] = [start.state as InteractionState];
    const observe = async (): Promise<void> => {
      states.push((await conn.call('interaction.getState', { sessionId })).state as InteractionState);
    };

    expect(await answer(server, conn, sessionId, 'Lisbon')).toEqual({ accepted: true, validation: { valid: true } });
    await observe();
    expect(conn.lastPrompt()?.prompt).toMatchObject({ type: 'date', message: 'Departure date for Lisbon:' });
    await answer(server, conn, sessionId, '2030-05-17');
    await answer(server, conn, sessionId, 2);
    expect(conn.lastPrompt()?.prompt.type).toBe('choice');
    await answer(server, conn, sessionId, 'first');
    expect(conn.lastPrompt()?.prompt.message).toBe('Add lounge access?');
    await observe();
    await answer(server, conn, sessionId, true);

    // The confirm step is announced by an interaction.continue without nextPrompt, then sent as nextPrompt.
    const continues = conn.requests('interaction.continue', sessionId);
    expect(continues).toHaveLength(2);
    expect(continues[0]).not.toHaveProperty('nextPrompt');
    expect(continues[0]?.progress).toMatchObject({ message: 'Checking availability for Lisbon' });
    expect(continues[1]?.nextPrompt).toMatchObject({ type: 'confirm', message: 'Book first to Lisbon on 2030-05-17 for 2?' });
    await answer(server, conn, sessionId, true);
    await observe();

    const completes = conn.requests('interaction.complete', sessionId);
    expect(completes).toEqual([
      {
        sessionId,
        result: {
          success: true,
          data: { destination: 'Lisbon', date: '2030-05-17', travellers: 2, class: 'first', lounge: true, reference: 'BK-Lisbon-2030-05-17' },
        },
        summary: 'Booked first to Lisbon on 2030-05-17 for 2',
      },
    ]);
    const state = await conn.call('interaction.getState', { sessionId });
    expect(state.state).toBe('completed');
    expect(state).not.toHaveProperty('currentPrompt');
    expect((state.history as { turnId: number }[]).map((t) => t.turnId)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(state.accumulatedData).toEqual({ destination: 'Lisbon', date: '2030-05-17', travellers: 2, cabin: 'first', lounge: true, confirm: true });
    expect(findIllegalObservation(states)).toBeUndefined();
    expect(states.at(-1)).toBe('completed');
    expect(conn.problems).toEqual([]);
  });

  it('goes back to the first step when the booking is not confirmed', async () => {
    const server = testServer();
    const conn = server.connect();
    const { sessionId } = (await conn.call('interaction.start', { toolName: 'booking' })) as { sessionId: string };
    for (const value of ['Oslo', '2031-01-02', 1, 'economy', false]) await answer(server, conn, sessionId, value);
    expect(conn.lastPrompt()?.prompt.message).toBe('Enter destination:');
    const progress = conn.requests('interaction.prompt', sessionId).at(-1)?.progress as { current: number; total: number };
    expect(progress.current).toBe(5);
    expect(progress.total).toBeGreaterThanOrEqual(progress.current);
    expect(conn.requests('interaction.complete')).toEqual([]);
  });
});

describe('registration wizard (every prompt by interaction.prompt, file and custom prompts)', () => {
  it('completes with the pro plan branch, a file and a custom value', async () => {
    const server = testServer();
    const conn = server.connect();
    const start = await conn.call('interaction.start', { toolName: 'registration' });
    expect(start).toEqual({ sessionId: start.sessionId, state: 'idle' });
    const sessionId = start.sessionId as string;
    await server.settle();
    expect(conn.requests('interaction.prompt', sessionId)).toHaveLength(1);
    expect(conn.lastPrompt()?.prompt.message).toBe('Enter name');
    const avatar = { name: 'me.png', mimeType: 'image/png', size: 2048 };
    for (const value of ['John', 'john@example.com', 42, 'pro', 'ACME', true, avatar, { theme: 'dark' }]) {
      expect(await answer(server, conn, sessionId, value)).toMatchObject({ accepted: true });
    }
    const [complete] = conn.requests('interaction.complete', sessionId);
    expect(complete?.result).toEqual({
      success: true,
      data: {
        user: { name: 'John', email: 'john@example.com', age: 42 },
        plan: 'pro',
        company: 'ACME',
        newsletter: true,
        avatar,
        preferences: { theme: 'dark' },
      },
    });
    expect(complete?.summary).toBe('Registered John <john@example.com> on the pro plan');
    const progress = conn.requests('interaction.prompt', sessionId).map((p) => (p.progress as { current: number }).current);
    expect(progress).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(conn.problems).toEqual([]);
  });

  it('skips the company step on the free plan and accepts empty optional answers', async () => {
    const server = testServer();
    const conn = server.connect();
    const { sessionId } = (await conn.call('interaction.start', { toolName: 'registration' })) as { sessionId: string };
    await server.settle();
    for (const value of ['Ann', 'ann@example.org', 30, 'free', false, null, null]) await answer(server, conn, sessionId, value);
    const messages = conn.requests('interaction.prompt', sessionId).map((p) => (p.prompt as { message: string }).message);
    expect(messages).not.toContain('Company name');
    expect(conn.requests('interaction.complete', sessionId)).toHaveLength(1);
  });
});

describe('file-export wizard', () => {
  it('completes with the exported file in the result', async () => {
    const server = testServer();
    const conn = server.connect();
    const { sessionId } = (await conn.call('interaction.start', { toolName: 'file-export' })) as { sessionId: string };
    await server.settle();
    for (const value of [3, 'report', true]) await answer(server, conn, sessionId, value);
    const [complete] = conn.requests('interaction.complete', sessionId);
    expect(complete?.result).toEqual({
      success: true,
      data: {
        fileName: 'report.csv',
        rows: 3,
        mimeType: 'text/csv',
        file: { name: 'report.csv', mimeType: 'text/csv', rows: 3, size: 39, content: 'id,value\n1,value-1\n2,value-2\n3,value-3\n' },
      },
    });
    expect(complete?.summary).toBe('Exported 3 rows to report.csv');
    expect(conn.problems).toEqual([]);
  });
});
