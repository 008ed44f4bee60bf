// The correct mock client over http: lifecycle and MCP core cases, the driver as a process per case.
import { correctClientRun } from './correct.js';

correctClientRun('http', ['lifecycle', 'mcp-core'], { viaProcess: true, verdicts: 'correct-http-a' });
