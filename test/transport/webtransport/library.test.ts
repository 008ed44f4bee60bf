import { spawnSync } from 'node:child_process';
import http2 from 'node:http2';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { closesResetWithCancel, guardHttp2CloseBeforeFinish, guardHttp2PingAfterDestroy, loadWebTransportLibrary } from '../../../src/transport/webtransport/library.js';
import { ensureDist, ROOT } from '../../support/build.js';

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

describe('HTTP/2 close-before-finish guard', () => {
  beforeAll(() => {
    ensureDist();
  }, 180_000);

  // In a process of its own: without the guard, Node's HTTP/2 core loops there (full CPU, memory
  // without bound, no JavaScript runs), which a bound on the child ends (20 s: a guarded run takes
  // well under a second, and the loop takes gigabytes in that time).
  it('resets with CANCEL a stream ended, closed with NO_ERROR and destroyed at once while the peer still sends, and the process goes on', () => {
    const guard = pathToFileURL(join(ROOT, 'dist', 'src', 'transport', 'webtransport', 'library.js')).href;
    const child = spawnSync(process.execPath, [join(ROOT, 'test', 'fixtures', 'http2', 'close-before-finish.mjs'), guard], { encoding: 'utf8', timeout: 20_000, killSignal: 'SIGKILL' });
    expect(child.signal, 'the process looped in the HTTP/2 core and was killed').toBeNull();
    const { rounds, reset } = JSON.parse(child.stdout) as { rounds: Array<{ received: number[]; rstCode: number }>; reset: number };
    // What was still queued behind the end may be dropped with the reset (as the destroy drops it).
    expect(rounds.map((round) => round.rstCode)).toEqual(Array(5).fill(http2.constants.NGHTTP2_CANCEL));
    expect(reset).toBe(5);
  });

  it('is in place for every HTTP/2 stream once the WebTransport library is loaded', async () => {
    await loadWebTransportLibrary();
    const session = http2.connect('http://localhost', { createConnection: () => new Socket() });
    session.on('error', () => undefined);
    const stream = session.request({ ':path': '/' });
    stream.on('error', () => undefined);
    try {
      expect(stream.close.name).toBe('guardedClose');
    } finally {
      session.destroy();
    }
  });

  it('leaves every other close to Node: a stream not yet ended closes with the code asked for', async () => {
    guardHttp2CloseBeforeFinish();
    const server = http2.createServer();
    server.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.respond({ ':status': 200 });
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as { port: number }).port}`);
    try {
      const before = closesResetWithCancel();
      const stream = session.request({ ':path': '/' });
      stream.on('error', () => undefined);
      stream.resume();
      await new Promise((resolve) => stream.once('close', resolve));
      expect(stream.rstCode).toBe(http2.constants.NGHTTP2_NO_ERROR);
      expect(closesResetWithCancel()).toBe(before);
    } finally {
      session.destroy();
      server.close();
    }
  });
});
