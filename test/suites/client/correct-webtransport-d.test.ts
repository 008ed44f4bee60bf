// The correct mock client over webtransport: cancellation, MCP Flow and robustness cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['cancellation', 'interaction', 'robustness'], { verdicts: 'correct-webtransport-d' });
