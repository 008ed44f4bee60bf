// The correct mock client over webtransport: MCP core cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['mcp-core'], { verdicts: 'correct-webtransport-b' });
