// A session whose control stream lost frame sync is closed once the peer has stopped sending, not
// while it still sends: resetting the HTTP/2 stream under a session that still receives data can
// send Node's HTTP/2 core into a loop that queues frames without end (seen in the mock server: 100%
// CPU, ~10 GB, no other session served, about one full WebTransport run in ten).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Transcript } from '../../../src/transport/transcript.js';
import { sessionLimits } from '../../../src/transport/webtransport/limits.js';
import { RECOMMENDED_BINDING_READINGS } from '../../../src/transport/webtransport/readings.js';
import { LOST_SYNC_CLOSE_DELAY_MS, LOST_SYNC_CLOSE_LIMIT_MS, LOST_SYNC_QUIET_MS, SessionCore } from '../../../src/transport/webtransport/session-core.js';

function core(): { core: SessionCore; closes: string[] } {
  const session = new SessionCore({
    role: 'server',
    transcript: new Transcript(),
    limits: sessionLimits(),
    readings: RECOMMENDED_BINDING_READINGS,
    raw: false,
    encodings: ['json'],
    datagramsSupported: true,
    answers: { parseErrors: true, streamInjection: true, streamReferences: true },
  });
  const closes: string[] = [];
  session.ops = {
    send: async () => undefined,
    close: async (reason) => {
      closes.push(reason);
      session.isClosed = true;
      session.changed();
    },
    controlOpen: () => true,
    writesSettled: async () => undefined,
  };
  return { core: session, closes };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('closing after a lost frame sync', () => {
  it('waits out the delay, then closes a session whose peer sends nothing more', async () => {
    const { core: session, closes } = core();
    const closing = session.closeAfterWrites('FRAME_TOO_LARGE');
    await vi.advanceTimersByTimeAsync(LOST_SYNC_CLOSE_DELAY_MS - 1);
    expect(closes).toEqual([]);
    await vi.advanceTimersByTimeAsync(LOST_SYNC_QUIET_MS + 1);
    await closing;
    expect(closes).toEqual(['FRAME_TOO_LARGE']);
  });

  it('does not close while the peer still sends, and closes once it has been quiet', async () => {
    const { core: session, closes } = core();
    const closing = session.closeAfterWrites('FRAME_TOO_LARGE');
    // The peer goes on sending (a chunk every 100 ms) for three times the delay.
    for (let elapsed = 0; elapsed < 3 * LOST_SYNC_CLOSE_DELAY_MS; elapsed += 100) {
      session.touch();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(closes).toEqual([]);
    const lastSent = Date.now();
    session.touch();
    await vi.advanceTimersByTimeAsync(LOST_SYNC_QUIET_MS + 1);
    await closing;
    expect(closes).toEqual(['FRAME_TOO_LARGE']);
    expect(Date.now() - lastSent).toBeGreaterThanOrEqual(LOST_SYNC_QUIET_MS);
  });

  it('closes a peer that never stops sending at the limit', async () => {
    const { core: session, closes } = core();
    const closing = session.closeAfterWrites('FRAME_TOO_LARGE');
    const started = Date.now();
    while (closes.length === 0 && Date.now() - started < 2 * LOST_SYNC_CLOSE_LIMIT_MS) {
      session.touch();
      await vi.advanceTimersByTimeAsync(50);
    }
    await closing;
    expect(closes).toEqual(['FRAME_TOO_LARGE']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(LOST_SYNC_CLOSE_LIMIT_MS - 50);
    expect(Date.now() - started).toBeLessThanOrEqual(LOST_SYNC_CLOSE_LIMIT_MS + 100);
  });

  it('stops waiting as soon as the session closed meanwhile', async () => {
    const { core: session } = core();
    let settled = false;
    const closing = session.closeAfterWrites('FRAME_TOO_LARGE').then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(LOST_SYNC_CLOSE_DELAY_MS / 2);
    session.touch();
    session.isClosed = true;
    session.changed();
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(true);
    await closing;
  });
});
