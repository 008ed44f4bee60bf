// The correct mock client over WebTransport: execution streams, cancellation, MCP Flow, shutdown and robustness cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['execution-streams', 'cancellation', 'interaction', 'shutdown', 'robustness']);
