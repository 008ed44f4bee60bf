// The correct mock client over http: the other modules (the WebTransport-only cases say they do not apply).
import { correctClientRun } from './correct.js';

correctClientRun('http', ['negotiation', 'execution-streams', 'cancellation', 'interaction', 'shutdown', 'robustness'], { verdicts: 'correct-http-b' });
