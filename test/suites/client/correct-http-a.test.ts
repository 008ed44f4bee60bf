// The correct mock client over http: lifecycle and MCP core cases.
import { correctClientRun } from './correct.js';

correctClientRun('http', ['lifecycle', 'mcp-core']);
