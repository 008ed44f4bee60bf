// server-everything over stdio (a process per case), judged by mcp-core and bad-input.
import { describe, expect, it } from 'vitest';
import { stdioTarget } from '../../src/harness/index.js';
import { CORE_MODULES_MESSAGES, SERVER_EVERYTHING_STDIO } from './expected.js';
import { serverEverythingStdioCommand } from './server-everything.js';
import { expectDocumentedDeviations, INTEROP_TIMEOUT_MS, runModules } from './support.js';

describe('@modelcontextprotocol/server-everything over stdio: mcp-core, bad-input', () => {
  it(
    'fails or warns exactly where docs/interop.md says, and nowhere else',
    async () => {
      const result = await runModules(stdioTarget(serverEverythingStdioCommand()), CORE_MODULES_MESSAGES);
      expectDocumentedDeviations(result, SERVER_EVERYTHING_STDIO);
    },
    INTEROP_TIMEOUT_MS,
  );
});
