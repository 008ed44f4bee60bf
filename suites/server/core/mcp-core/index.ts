// Suite `mcp-core`: MCP core server behaviour checked without fixture names. Every case learns
// what to ask from the target's own lists and is gated on the capabilities it declared.
import type { ConformanceCase } from '../../../../src/harness/index.js';
import { cases as logging } from './logging.js';
import { cases as progress } from './progress.js';
import { cases as prompts } from './prompts.js';
import { cases as resources } from './resources.js';
import { cases as rpc } from './rpc.js';
import { cases as tools } from './tools.js';

export const cases: readonly ConformanceCase[] = [...rpc, ...tools, ...progress, ...logging, ...resources, ...prompts];
