// guardSessionClose (library-session.ts) keeps a session's close off the sequence that sends Node's
// HTTP/2 core into a loop without end: end() on the CONNECT stream, then close(NO_ERROR) while the
// peer still sends. Plain node:http2 here, with a stand-in for the library's parser (its stream and
// its closeHttp2Stream, which closes with the session's code and destroys, as the library's does).
// Without the guard the second test does not fail: it sends this process into that loop (100% CPU,
// gigabytes), which is why the guard exists; it was checked by hand, not here.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { guardSessionClose, type LibrarySession } from '../../../src/transport/webtransport/library-session.js';
import { generateSelfSignedCertificate } from '../../../src/transport/webtransport/tls.js';

interface Pair {
  server: http2.Http2SecureServer;
  serverStream: http2.ServerHttp2Stream;
  client: http2.ClientHttp2Session;
  clientStream: http2.ClientHttp2Stream;
}

const open: Pair[] = [];

afterEach(async () => {
  for (const pair of open.splice(0)) {
    pair.client.destroy();
    await new Promise((resolve) => pair.server.close(resolve));
  }
});

/** A CONNECT stream (extended CONNECT, as a WebTransport session over HTTP/2 opens it) between a server and a client on 127.0.0.1. */
async function connectPair(): Promise<Pair> {
  const tls = await generateSelfSignedCertificate();
  const server = http2.createSecureServer({ key: tls.keyPem, cert: tls.certPem, settings: { enableConnectProtocol: true } });
  const arrived = new Promise<http2.ServerHttp2Stream>((resolve) => server.once('stream', (stream) => resolve(stream)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = http2.connect(`https://127.0.0.1:${(server.address() as AddressInfo).port}`, { rejectUnauthorized: false });
  client.on('error', () => undefined);
  await new Promise((resolve) => client.once('remoteSettings', resolve));
  const clientStream = client.request({ ':method': 'CONNECT', ':protocol': 'webtransport', ':scheme': 'https', ':path': '/mcp', ':authority': 'localhost' });
  clientStream.on('error', () => undefined);
  clientStream.resume();
  const serverStream = await arrived;
  serverStream.on('error', () => undefined);
  serverStream.respond({ ':status': 200 });
  serverStream.resume();
  const pair = { server, serverStream, client, clientStream };
  open.push(pair);
  return pair;
}

/** A session as the library builds one over HTTP/2: its parser holds the stream and closes it with a code. */
function librarySession(stream: http2.ServerHttp2Stream): { session: LibrarySession; codes: number[] } {
  const codes: number[] = [];
  const parser = {
    stream,
    closeHttp2Stream(code: number) {
      codes.push(code);
      stream.close(code);
      stream.destroy();
    },
  };
  return { session: { sessionint: { objint: parser } } as unknown as LibrarySession, codes };
}

/** The parser's closeHttp2Stream, as the library calls it after the close capsule and the stream's end. */
function closeAsTheLibraryDoes(session: LibrarySession, code: number): void {
  (session as unknown as { sessionint: { objint: { closeHttp2Stream(code: number): void } } }).sessionint.objint.closeHttp2Stream(code);
}

function clientClosed(stream: http2.ClientHttp2Stream): Promise<number | undefined> {
  return new Promise((resolve) => (stream.closed ? resolve(stream.rstCode) : stream.once('close', () => resolve(stream.rstCode))));
}

describe('guardSessionClose', () => {
  it('closes as the library does once a peer that read the close ends its side', async () => {
    const { serverStream, clientStream } = await connectPair();
    const { session, codes } = librarySession(serverStream);
    guardSessionClose(session);
    serverStream.end(Buffer.from('close capsule'));
    closeAsTheLibraryDoes(session, http2.constants.NGHTTP2_NO_ERROR);
    // Waiting for the peer: nothing closed yet.
    expect(codes).toEqual([]);
    clientStream.end();
    await clientClosed(clientStream);
    expect(codes).toEqual([http2.constants.NGHTTP2_NO_ERROR]);
  });

  it('resets with CANCEL, after the grace, a peer that goes on sending (the loop is not entered)', async () => {
    const { serverStream, clientStream } = await connectPair();
    const { session, codes } = librarySession(serverStream);
    guardSessionClose(session);
    const chunk = Buffer.alloc(1 << 20);
    const sending = setInterval(() => {
      if (!clientStream.destroyed && !clientStream.writableEnded) clientStream.write(chunk);
    }, 5);
    try {
      serverStream.end(Buffer.from('close capsule'));
      closeAsTheLibraryDoes(session, http2.constants.NGHTTP2_NO_ERROR);
      // The event loop keeps turning meanwhile (the loop this avoids never lets it).
      let ticks = 0;
      const ticking = setInterval(() => ticks++, 50);
      const rstCode = await clientClosed(clientStream);
      clearInterval(ticking);
      expect(codes).toEqual([http2.constants.NGHTTP2_CANCEL]);
      expect(rstCode).toBe(http2.constants.NGHTTP2_CANCEL);
      expect(ticks).toBeGreaterThan(5);
    } finally {
      clearInterval(sending);
    }
  }, 30_000);

  it('leaves any other close as the library makes it', async () => {
    const { serverStream, clientStream } = await connectPair();
    const { session, codes } = librarySession(serverStream);
    guardSessionClose(session);
    serverStream.end(Buffer.from('close capsule'));
    closeAsTheLibraryDoes(session, 0x100);
    expect(codes).toEqual([0x100]);
    expect(await clientClosed(clientStream)).toBe(0x100);
  });
});
