// The correct mock client over webtransport: execution-stream and shutdown cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['execution-streams', 'shutdown'], { verdicts: 'correct-webtransport-c' });
