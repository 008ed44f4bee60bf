// The conformance suites inside your own vitest run: one test per case, against a server your
// test starts (here the package's own mock server; start yours the same way, or name a running
// one with { url } or a command with { stdio }).
//
//   npm install --save-dev mcp-flow-conformance vitest
//   npx vitest run
import { afterAll, beforeAll } from 'vitest';
import { startMockServer, type RunningMockServer } from 'mcp-flow-conformance';
import { defineConformanceTests } from 'mcp-flow-conformance/vitest';

let server: RunningMockServer;

beforeAll(async () => {
  // Streamable HTTP on 127.0.0.1, a free port.
  server = await startMockServer({ transport: 'http' });
});

afterAll(async () => {
  await server?.close();
});

defineConformanceTests({
  name: 'mock server conformance',
  // A function: the server (and its port) exists only once beforeAll has run.
  target: () => ({ url: server.url }),
  suites: ['mcp-core'],
  // A broken SHOULD fails the test instead of warning.
  strict: true,
});
