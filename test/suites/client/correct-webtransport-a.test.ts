// The correct mock client over webtransport: lifecycle and negotiation cases, the driver as a process per case.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['lifecycle', 'negotiation'], { viaProcess: true, verdicts: 'correct-webtransport-a' });
