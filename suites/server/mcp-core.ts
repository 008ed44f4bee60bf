// Suite `mcp-core`: MCP core server behaviour checked without fixture names. Every case learns
// what to ask from the target's own lists and is gated on the capabilities it declared.
import type { ConformanceCase } from '../../src/harness/index.js';
import { cases as logging } from './mcp-core/logging.js';
import { cases as progress } from './mcp-core/progress.js';
import { cases as prompts } from './mcp-core/prompts.js';
import { cases as resources } from './mcp-core/resources.js';
import { cases as rpc } from './mcp-core/rpc.js';
import { cases as tools } from './mcp-core/tools.js';

export const cases: readonly ConformanceCase[] = [...rpc, ...tools, ...progress, ...logging, ...resources, ...prompts];
