// The correct mock client declaring roots, elicitation and sampling: the cases that apply only to
// a client declaring them pass (their faults, which declare them too, fail them: faults.ts).
import { correctClientRun } from './correct.js';

const DECLARING = { capabilities: { roots: {}, elicitation: {}, sampling: {} } };

correctClientRun('webtransport', ['mcp-core'], { verdicts: 'correct-declared', client: DECLARING });
correctClientRun('http', ['mcp-core'], { verdicts: 'correct-declared', client: DECLARING });
