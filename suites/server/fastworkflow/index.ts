// The fastworkflow suite: seed 004's FastWorkflow MCP server over Streamable HTTP (FW-*).
import type { ConformanceCase } from '../../../src/harness/index.js';
import { conversationCases } from './conversations.js';
import { errorCases } from './errors.js';
import { promptCases } from './prompts.js';
import { sessionCases } from './sessions.js';
import { streamingCases } from './streaming.js';
import { toolCases } from './tools.js';
import { transportCases } from './transport.js';

export const cases: readonly ConformanceCase[] = [
  ...transportCases,
  ...sessionCases,
  ...toolCases,
  ...streamingCases,
  ...promptCases,
  ...errorCases,
  ...conversationCases,
];
