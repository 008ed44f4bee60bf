// FW-TOOL-9's two accepted shapes of a CommandOutput and its CommandResponses (profile C-33):
// 004 §9's sketch (schemas/fastworkflow/command-output.payload, command-response.payload), and
// FastWorkflow's canonical pydantic types, which 004 §9 prefers ("Prefer importing FastWorkflow
// canonical types where available"). Each object is judged on its own; members neither shape
// names are INFO notes.
import { isRecord } from '../../../src/wire/index.js';
import { shapeOf } from '../../support/fastworkflow.js';

export const SKETCH = "004 §9's sketch";
export const CANONICAL = "FastWorkflow's canonical types";
export type ContractReading = typeof SKETCH | typeof CANONICAL;

export interface ContractShape {
  /** What breaks both readings (the sketch's problems, which is the recommended one). */
  problems: string[];
  /** Members neither reading names (JSON pointers). */
  extras: string[];
  /** The readings the objects follow. */
  readings: Set<ContractReading>;
}

type Member = (value: unknown) => boolean;
const string: Member = (v) => typeof v === 'string';
const boolean: Member = (v) => typeof v === 'boolean';
const object: Member = (v) => isRecord(v);
const arrayOf = (item: Member): Member => (v) => Array.isArray(v) && v.every(item);

/** Members of an object, required or optional, each with its test; anything else is an extra. */
interface Contract {
  required: Record<string, Member>;
  optional?: Record<string, Member>;
}

/** fastworkflow.Action: command_name, and command, parameters, workflow_id as it serializes them. */
const ACTION: Contract = {
  required: { command_name: string },
  optional: { command: string, parameters: object, workflow_id: (v) => v === null || Number.isInteger(v) },
};
/** fastworkflow.Recommendation: summary and suggested_actions (Actions). */
const RECOMMENDATION: Contract = { required: { summary: string }, optional: { suggested_actions: arrayOf((v) => conforms(v, ACTION)) } };

/** fastworkflow.CommandResponse as pydantic serializes it (every field, defaults included). */
const CANONICAL_RESPONSE: Contract = {
  required: {
    response: string,
    success: boolean,
    artifacts: object,
    next_actions: arrayOf((v) => conforms(v, ACTION)),
    recommendations: arrayOf((v) => conforms(v, RECOMMENDATION)),
  },
};

/**
 * fastworkflow.CommandOutput as pydantic serializes it: its string fields; `success` is a property
 * (present only where a server adds it), `traces` is what 004 §6.1 attaches. command_responses
 * are judged one by one.
 */
const CANONICAL_OUTPUT: Contract = {
  required: { command_responses: Array.isArray, workflow_name: string, context: string, command_name: string, command_parameters: string },
  optional: { success: boolean, traces: (v) => v === null || Array.isArray(v) },
};

function conforms(value: unknown, contract: Contract): boolean {
  return contractProblems(value, contract).length === 0;
}

function contractProblems(value: unknown, contract: Contract, at = ''): string[] {
  if (!isRecord(value)) return [`${at || '/'}: not an object`];
  const problems: string[] = [];
  for (const [name, test] of Object.entries(contract.required)) {
    if (!(name in value)) problems.push(`${at}/${name}: missing`);
    else if (!test(value[name])) problems.push(`${at}/${name}: ${JSON.stringify(value[name])} has the wrong type`);
  }
  for (const [name, test] of Object.entries(contract.optional ?? {})) {
    if (name in value && !test(value[name])) problems.push(`${at}/${name}: ${JSON.stringify(value[name])} has the wrong type`);
  }
  return problems;
}

function unnamed(value: Record<string, unknown>, contract: Contract, at: string): string[] {
  return Object.keys(value)
    .filter((name) => !(name in contract.required) && !(name in (contract.optional ?? {})))
    .map((name) => `${at}/${name}`);
}

/** One object against both readings: the sketch's schema first (recommended), then the canonical type. */
function judge(value: unknown, sketchSlug: string, canonical: Contract, at: string, into: ContractShape): void {
  const sketch = shapeOf(sketchSlug, value);
  if (sketch.problems.length === 0) {
    into.readings.add(SKETCH);
    into.extras.push(...sketch.extras.map((pointer) => `${at}${pointer}`));
    return;
  }
  if (contractProblems(value, canonical).length === 0 && isRecord(value)) {
    into.readings.add(CANONICAL);
    into.extras.push(...unnamed(value, canonical, at));
    return;
  }
  into.problems.push(...sketch.problems.map((problem) => (at === '' ? problem : `${at}: ${problem}`)));
}

/** A CommandOutput (its `traces` aside: FW-STREAM judges those) against the readings of C-33. */
export function commandOutputShape(output: unknown): ContractShape {
  const shape: ContractShape = { problems: [], extras: [], readings: new Set() };
  if (!isRecord(output)) {
    shape.problems.push('the CommandOutput is not an object');
    return shape;
  }
  const { traces: _traces, ...rest } = output;
  if (!Array.isArray(rest.command_responses)) {
    shape.problems.push(`command_responses is ${'command_responses' in rest ? 'not an array' : 'missing'} (both readings have an array of CommandResponse)`);
    return shape;
  }
  // The top level with its responses judged apart (a server may mix the readings).
  judge({ ...rest, command_responses: [] }, 'command-output.payload', CANONICAL_OUTPUT, '', shape);
  rest.command_responses.forEach((response, index) => judge(response, 'command-response.payload', CANONICAL_RESPONSE, `/command_responses/${index}`, shape));
  return shape;
}
