// @modelcontextprotocol/server-memory over stdio (a process per case), judged by negotiation, lifecycle, cancellation and session-security.
// Its knowledge graph lives in a temporary folder of this file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { CORE_MODULES_LIFECYCLE, SERVER_MEMORY_STDIO } from './expected.js';
import { stdioCommand } from './peer-process.js';
import { SERVER_MEMORY_VERSION, serverMemory } from './peers.js';
import { describePeer } from './support.js';

const folder = mkdtempSync(join(tmpdir(), 'interop-server-memory-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describePeer(`@modelcontextprotocol/server-memory ${SERVER_MEMORY_VERSION} over stdio: negotiation, lifecycle, cancellation, session-security`, {
  stdio: stdioCommand(serverMemory(join(folder, 'memory.jsonl'))),
  modules: CORE_MODULES_LIFECYCLE,
  expected: SERVER_MEMORY_STDIO,
});
