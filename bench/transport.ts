// WebTransport binding benchmark over loopback HTTP/2: session set-up time (connect + control
// stream + initialize), control-stream round trip (ping), and execution-stream throughput as a
// ratio to raw @fails-components/webtransport unidirectional streams measured in the same run
// (goal >= 0.8). Run: npx tsx bench/transport.ts [--mb 64] [--rounds 5]
import { webTransportBinding } from '../src/peer/server/binding.js';
import { connectWebTransport, initializeSession } from '../src/transport/webtransport/client.js';
import { loadWebTransportLibrary } from '../src/transport/webtransport/library.js';
import { listenWebTransport } from '../src/transport/webtransport/server.js';
import type { LibrarySession } from '../src/transport/webtransport/session.js';
import type { WebTransportSessionConnection } from '../src/transport/webtransport/session.js';
import { generateSelfSignedCertificate } from '../src/transport/webtransport/tls.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(`--${name}`);
  const value = at >= 0 ? Number(args[at + 1]) : fallback;
  // Whole numbers only: the payload is sent in whole chunks and must add up to exactly --mb MiB.
  if (!Number.isInteger(value) || value <= 0) {
    console.error(`--${name} needs a positive whole number`);
    process.exit(2);
  }
  return value;
};
const PAYLOAD_MB = option('mb', 64);
const ROUNDS = option('rounds', 5);
const SETUPS = 20;
const PINGS = 500;
const CHUNK = 256 * 1024;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const payloadBytes = PAYLOAD_MB * 1024 * 1024;
const chunk = new Uint8Array(CHUNK).fill(0x5a);

function respond(connection: WebTransportSessionConnection): void {
  void (async () => {
    for (;;) {
      const received = await connection.next().catch(() => undefined);
      if (!received) return;
      const message = received.message as { id?: unknown; method?: string };
      if (message.id === undefined || message.method === undefined || message.method === 'upload') continue;
      const result = message.method === 'initialize' ? { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'bench', version: '1' }, transport: connection.negotiate() } : {};
      await connection.send({ jsonrpc: '2.0', id: message.id, result }).catch(() => undefined);
    }
  })();
}

async function drain(readable: ReadableStream<Uint8Array>): Promise<number> {
  let bytes = 0;
  const reader = readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

async function main(): Promise<void> {
  const tls = await generateSelfSignedCertificate();
  const serverSide: WebTransportSessionConnection[] = [];
  const server = await listenWebTransport({
    tls,
    limits: { maxPendingBytes: 64 * 1024 * 1024 },
    ...webTransportBinding().listener,
    onConnection: (connection) => {
      serverSide.push(connection);
      respond(connection);
    },
  });
  const connectOptions = { certificateHash: server.certificateHash };

  // 1. Session set-up: connect, open the control stream, initialize.
  const setups: number[] = [];
  for (let i = 0; i < SETUPS; i++) {
    const started = performance.now();
    const client = await connectWebTransport(server.url, connectOptions);
    await initializeSession(client);
    setups.push(performance.now() - started);
    await client.close();
  }

  // 2. Control round trip (CBOR after initialize).
  const client = await connectWebTransport(server.url, connectOptions);
  await initializeSession(client);
  const serverConnection = serverSide.at(-1)!;
  const rtts: number[] = [];
  for (let id = 1; id <= PINGS; id++) {
    const started = performance.now();
    await client.send({ jsonrpc: '2.0', id, method: 'ping' });
    await client.next((received) => (received.message as { id?: number }).id === id);
    rtts.push(performance.now() - started);
  }

  // 3. Execution-stream throughput: the binding vs raw library streams, alternating rounds.
  const library = await loadWebTransportLibrary();
  const rawServer = new library.Http2Server({ port: 0, host: '127.0.0.1', secret: 'bench', cert: tls.certPem, privKey: tls.keyPem } as never);
  // Same accept path as listenWebTransport (a session request callback), so only the binding differs.
  (rawServer as unknown as { setRequestCallback(callback: () => Promise<unknown>): void }).setRequestCallback(async () => ({ status: 200, path: '/raw' }));
  const rawSessions = rawServer.sessionStream('/raw');
  rawServer.startServer();
  await rawServer.ready;
  const rawClient = new library.WebTransport(`https://127.0.0.1:${rawServer.address()!.port}/raw`, {
    forceReliable: true,
    serverCertificateHashes: [{ algorithm: 'sha-256', value: tls.certificateHash }],
  } as never) as unknown as LibrarySession;
  await rawClient.ready;
  const rawServerSession = (await rawSessions.getReader().read()).value as unknown as LibrarySession;
  await rawServerSession.ready;
  const rawIncoming = rawServerSession.incomingUnidirectionalStreams.getReader();

  const bindingRates: number[] = [];
  const rawRates: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    {
      const id = 10_000 + round;
      await client.send({ jsonrpc: '2.0', id, method: 'upload' });
      const started = performance.now();
      const outgoing = await client.webtransport.openExecutionStream({ requestId: id, streamTag: 1 });
      const incoming = serverConnection.webtransport.nextExecutionStream();
      const received = incoming.then((stream) => drain(stream.readable));
      for (let sent = 0; sent < payloadBytes; sent += CHUNK) await outgoing.write(chunk);
      await outgoing.close();
      const bytes = await received;
      if (bytes !== payloadBytes) throw new Error(`binding stream delivered ${bytes} of ${payloadBytes} bytes`);
      bindingRates.push(bytes / ((performance.now() - started) / 1000));
    }
    {
      const started = performance.now();
      const writable = await rawClient.createUnidirectionalStream();
      const writer = writable.getWriter();
      const received = rawIncoming.read().then(({ value }) => drain(value!));
      for (let sent = 0; sent < payloadBytes; sent += CHUNK) {
        await writer.ready;
        await writer.write(chunk);
      }
      await writer.close();
      const bytes = await received;
      if (bytes !== payloadBytes) throw new Error(`raw stream delivered ${bytes} of ${payloadBytes} bytes`);
      rawRates.push(bytes / ((performance.now() - started) / 1000));
    }
  }

  const mbps = (rate: number) => (rate / (1024 * 1024)).toFixed(1);
  const binding = median(bindingRates);
  const raw = median(rawRates);
  const ratio = binding / raw;
  console.log('WebTransport binding over loopback HTTP/2 (medians)');
  console.log(`  session set-up (connect + control stream + initialize): ${median(setups).toFixed(2)} ms over ${SETUPS}`);
  console.log(`  control round trip (ping, CBOR):                        ${median(rtts).toFixed(3)} ms over ${PINGS}`);
  console.log(`  execution stream, ${PAYLOAD_MB} MB x ${ROUNDS}:  binding ${mbps(binding)} MB/s, raw library ${mbps(raw)} MB/s`);
  console.log(`  throughput ratio binding/raw: ${ratio.toFixed(2)} (goal >= 0.80: ${ratio >= 0.8 ? 'met' : 'NOT met'})`);

  await client.close();
  rawClient.close({ closeCode: 0, reason: 'done' });
  rawServer.stopServer();
  await server.close();
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
