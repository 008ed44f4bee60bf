// @modelcontextprotocol/server-memory over stdio (a process per case), judged by every suite that
// applies to an MCP server over stdio. Its knowledge graph lives in a temporary folder for the file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { SERVER_MEMORY_STDIO, STDIO_MODULES } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_MEMORY_VERSION, serverMemory } from './peers.js';
import { describePeer } from './support.js';

const folder = mkdtempSync(join(tmpdir(), 'interop-server-memory-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describePeer(`@modelcontextprotocol/server-memory ${SERVER_MEMORY_VERSION} over stdio`, {
  stdio: stdioCommand(serverMemory(join(folder, 'memory.jsonl'))),
  modules: STDIO_MODULES,
  expected: SERVER_MEMORY_STDIO,
});
