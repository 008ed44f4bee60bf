// The correct mock client over WebTransport: lifecycle, negotiation and MCP core cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['lifecycle', 'negotiation', 'mcp-core']);
