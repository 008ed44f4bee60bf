// One HTTP exchange: a request written on a kept-alive socket that the server has just closed (it
// resets before any answer) goes once more on a new socket; any other failure is reported.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startExchange } from '../../../src/transport/http/exchange.js';
import { ConnectionError } from '../../../src/transport/errors.js';

const stops: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (stops.length > 0) await stops.pop()!();
});

/** A server that answers the first request of each socket and resets the socket when a second one starts on it. */
async function resetOnSecondRequest(): Promise<{ url: URL; answered: () => number; sockets: () => number }> {
  let answered = 0;
  let sockets = 0;
  const server = http.createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.socket.destroyed) return;
      answered++;
      res.end('ok');
    });
  });
  const served = new WeakSet<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets++;
    socket.on('data', () => {
      if (served.has(socket)) socket.resetAndDestroy();
    });
    socket.once('data', () => served.add(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stops.push(() => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  }));
  const { port } = server.address() as AddressInfo;
  return { url: new URL(`http://127.0.0.1:${port}/mcp`), answered: () => answered, sockets: () => sockets };
}

async function post(url: URL, agent: http.Agent): Promise<string> {
  const exchange = startExchange({ url, method: 'POST', headers: { 'Content-Type': 'application/json' }, body: new TextEncoder().encode('{}'), agent, signal: new AbortController().signal });
  const response = await exchange.response;
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return text;
}

describe('startExchange', () => {
  it('sends again, on a new socket, a request that a kept-alive socket reset before any answer', async () => {
    const { url, answered, sockets } = await resetOnSecondRequest();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    stops.push(async () => agent.destroy());
    expect(await post(url, agent)).toBe('ok');
    expect(await post(url, agent)).toBe('ok');
    expect(answered()).toBe(2);
    expect(sockets()).toBe(2);
  });

  it('reports a reset of a new socket as a typed error, without sending again', async () => {
    const server = http.createServer((req) => req.socket.resetAndDestroy());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stops.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const agent = new http.Agent({ keepAlive: true });
    stops.push(async () => agent.destroy());
    let requests = 0;
    server.on('request', () => requests++);
    await expect(post(new URL(`http://127.0.0.1:${port}/mcp`), agent)).rejects.toBeInstanceOf(ConnectionError);
    expect(requests).toBe(1);
  });
});
