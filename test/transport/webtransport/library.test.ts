import http2 from 'node:http2';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { guardHttp2PingAfterDestroy } from '../../../src/transport/webtransport/library.js';

describe('HTTP/2 ping guard', () => {
  it('turns a ping on a destroyed session into a callback error instead of a throw', async () => {
    guardHttp2PingAfterDestroy();
    guardHttp2PingAfterDestroy(); // idempotent
    const socket = new Socket();
    const session = http2.performServerHandshake(socket);
    session.destroy();
    socket.destroy();
    const error = await new Promise<Error | null>((resolve) => {
      expect(session.ping((err) => resolve(err))).toBe(false);
    });
    expect(error?.message).toMatch(/destroyed/);
  });

  it("leaves pings on live sessions to Node (a bad payload still throws Node's own error)", () => {
    guardHttp2PingAfterDestroy();
    const socket = new Socket();
    const session = http2.performServerHandshake(socket);
    try {
      expect(() => session.ping(Buffer.alloc(3), () => {})).toThrow(/payload/i);
    } finally {
      session.destroy();
      socket.destroy();
    }
  });
});
