// The correct mock client over webtransport: lifecycle and negotiation cases.
import { correctClientRun } from './correct.js';

correctClientRun('webtransport', ['lifecycle', 'negotiation']);
