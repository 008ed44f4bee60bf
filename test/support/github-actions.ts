// Runs GitHub Actions YAML the way a runner does, for the tests of action.yml and of
// examples/github-actions.yml: a reader for the YAML they are written in (block mappings and
// sequences, `|` block scalars, quoted and plain scalars, comments), the `${{ }}` expressions they
// use (inputs, github.*, runner.temp, steps.<id>.outputs, !cancelled(), always(), success(),
// failure(), ==, !=, &&), and steps: `run` with `bash --noprofile --norc -eo pipefail`, a fresh
// GITHUB_OUTPUT per step read back into steps.<id>.outputs, GITHUB_STEP_SUMMARY, the step's env and
// working-directory; `uses` steps go to handlers the test gives.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// ---------------------------------------------------------------------------------------------
// YAML (the subset workflows and actions are written in; flow sequences of plain scalars only)

interface Line {
  indent: number;
  text: string;
  number: number;
}

function stripComment(raw: string): string {
  let quote: string | undefined;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === '#' && (i === 0 || /\s/.test(raw[i - 1]!))) return raw.slice(0, i);
  }
  return raw;
}

function scalar(text: string, number: number): unknown {
  const value = text.trim();
  // A flow sequence of plain scalars (`branches: [main]`), the one flow collection workflows use here.
  const flow = /^\[(.*)\]$/.exec(value);
  if (flow) return flow[1]!.trim() === '' ? [] : flow[1]!.split(',').map((item) => scalar(item, number));
  if (value.startsWith('"')) {
    if (!value.endsWith('"') || value.length < 2) throw new Error(`line ${number}: unterminated double-quoted string`);
    return JSON.parse(value) as string;
  }
  if (value.startsWith("'")) {
    if (!value.endsWith("'") || value.length < 2) throw new Error(`line ${number}: unterminated single-quoted string`);
    return value.slice(1, -1).replaceAll("''", "'");
  }
  if (/^[[{]/.test(value) && !value.startsWith('${{')) throw new Error(`line ${number}: flow collections are not used here: ${value}`);
  return value;
}

/** Parses the YAML subset; scalars stay strings (as the runner hands inputs over). */
export function parseYaml(text: string): unknown {
  if (text.includes('\t')) throw new Error('tabs are not allowed in YAML indentation');
  const raw = text.split('\n');
  const lines: (Line | undefined)[] = raw.map((line, index) => {
    const content = stripComment(line);
    if (content.trim() === '') return undefined;
    return { indent: content.length - content.trimStart().length, text: content.trimEnd().trimStart(), number: index + 1 };
  });
  let pos = 0;
  const next = (): Line | undefined => {
    while (pos < lines.length && lines[pos] === undefined) pos++;
    return lines[pos];
  };

  function block(keyIndent: number, startLine: number): string {
    // A `|` block: every following line indented deeper (or blank), its common indentation removed.
    const body: string[] = [];
    let indent: number | undefined;
    let i = startLine;
    for (; i < raw.length; i++) {
      const line = raw[i]!;
      if (line.trim() === '') {
        body.push('');
        continue;
      }
      const lineIndent = line.length - line.trimStart().length;
      if (lineIndent <= keyIndent) break;
      indent ??= lineIndent;
      body.push(line.slice(indent));
    }
    while (body.length > 0 && body.at(-1) === '') body.pop();
    pos = i;
    return `${body.join('\n')}\n`;
  }

  function node(indent: number): unknown {
    const line = next();
    if (line === undefined || line.indent < indent) return '';
    return line.text.startsWith('- ') || line.text === '-' ? sequence(line.indent) : mapping(line.indent);
  }

  function sequence(indent: number): unknown[] {
    const items: unknown[] = [];
    for (let line = next(); line !== undefined && line.indent === indent && (line.text.startsWith('- ') || line.text === '-'); line = next()) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '') {
        pos++;
        items.push(node(indent + 1));
      } else if (/^[A-Za-z0-9_.-]+:(\s|$)/.test(rest)) {
        // `- key: value` opens a mapping at the column after the dash.
        lines[pos] = { indent: indent + 2, text: rest, number: line.number };
        items.push(mapping(indent + 2));
      } else {
        pos++;
        items.push(scalar(rest, line.number));
      }
    }
    return items;
  }

  function mapping(indent: number): Record<string, unknown> {
    const map: Record<string, unknown> = {};
    for (let line = next(); line !== undefined && line.indent === indent; line = next()) {
      const match = /^([A-Za-z0-9_.-]+):(?:\s+(.*))?$/.exec(line.text);
      if (!match) throw new Error(`line ${line.number}: expected "key: value", got ${JSON.stringify(line.text)}`);
      const [, key, value] = match;
      if (Object.hasOwn(map, key!)) throw new Error(`line ${line.number}: key ${key} given twice`);
      pos++;
      if (value === undefined || value === '') {
        const child = next();
        map[key!] = child !== undefined && child.indent > indent ? node(child.indent) : child !== undefined && child.indent === indent && child.text.startsWith('- ') ? sequence(indent) : '';
      } else if (value === '|') {
        map[key!] = block(indent, line.number);
      } else {
        map[key!] = scalar(value, line.number);
      }
    }
    const after = next();
    if (after !== undefined && after.indent > indent) throw new Error(`line ${after.number}: unexpected indentation`);
    return map;
  }

  const root = node(0);
  if (next() !== undefined) throw new Error(`line ${next()!.number}: unexpected content after the document`);
  return root;
}

// ---------------------------------------------------------------------------------------------
// Expressions

export interface ExpressionContext {
  inputs: Record<string, string>;
  github: Record<string, string>;
  runner: Record<string, string>;
  steps: Record<string, { outputs: Record<string, string>; outcome: 'success' | 'failure' | 'skipped' }>;
  /** Whether a step of the job has failed so far. */
  failed: boolean;
}

function value(term: string, context: ExpressionContext): string | boolean {
  const text = term.trim();
  if (text.startsWith('!')) return !truthy(value(text.slice(1), context));
  const literal = /^'((?:[^']|'')*)'$/.exec(text);
  if (literal) return literal[1]!.replaceAll("''", "'");
  if (text === 'true' || text === 'false') return text === 'true';
  const call = /^(cancelled|always|success|failure)\(\)$/.exec(text);
  if (call) return call[1] === 'cancelled' ? false : call[1] === 'always' ? true : call[1] === 'success' ? !context.failed : context.failed;
  const path = text.split('.');
  if (path[0] === 'inputs' && path.length === 2) return context.inputs[path[1]!] ?? '';
  if ((path[0] === 'github' || path[0] === 'runner') && path.length === 2) return context[path[0]][path[1]!] ?? '';
  if (path[0] === 'steps' && path.length === 4 && path[2] === 'outputs') return context.steps[path[1]!]?.outputs[path[3]!] ?? '';
  throw new Error(`expression not supported by the test runner: ${text}`);
}

function truthy(result: string | boolean): boolean {
  return typeof result === 'boolean' ? result : result !== '';
}

/** Evaluates one expression (without `${{ }}`). */
export function evaluate(expression: string, context: ExpressionContext): string | boolean {
  const all = expression.split('&&').map((part) => {
    const comparison = /^(.*?)(==|!=)(.*)$/.exec(part);
    if (!comparison) return value(part, context);
    const equal = String(value(comparison[1]!, context)) === String(value(comparison[3]!, context));
    return comparison[2] === '==' ? equal : !equal;
  });
  return all.length === 1 ? all[0]! : all.every(truthy);
}

/** Replaces every `${{ expr }}` in `text`. */
export function interpolate(text: string, context: ExpressionContext): string {
  return text.replace(/\$\{\{(.*?)\}\}/g, (_match, expression: string) => String(evaluate(expression, context)));
}

function condition(step: Record<string, unknown>, context: ExpressionContext): boolean {
  const given = typeof step['if'] === 'string' ? step['if'].trim() : undefined;
  if (given === undefined) return !context.failed;
  const expression = /^\$\{\{(.*)\}\}$/.exec(given)?.[1] ?? given;
  return truthy(evaluate(expression, context));
}

// ---------------------------------------------------------------------------------------------
// Steps

export interface StepRecord {
  name: string;
  kind: 'run' | 'uses' | 'skipped';
  exitCode?: number;
  output?: string;
}

export interface RunnerEnvironment {
  /** GITHUB_WORKSPACE: where run steps start. */
  workspace: string;
  /** GITHUB_ACTION_PATH of the composite action being run. */
  actionPath?: string;
  /** Collects every step's GITHUB_STEP_SUMMARY. */
  summaryFile: string;
  /** Handlers of `uses` steps, by the `uses` value without its version (`actions/upload-artifact`). */
  uses: Record<string, (withInputs: Record<string, string>, context: ExpressionContext) => Promise<Record<string, string> | void>>;
  /** Added to every step's environment. */
  env?: Record<string, string>;
}

async function bash(script: string, env: Record<string, string>, cwd: string): Promise<{ exitCode: number; output: string }> {
  const dir = mkdtempSync(join(env['RUNNER_TEMP']!, 'step-'));
  const file = join(dir, 'step.sh');
  writeFileSync(file, script);
  const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', file], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exitCode = await new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return { exitCode, output };
}

/** name=value lines and name<<DELIMITER blocks, as GITHUB_OUTPUT holds them. */
function readOutputs(file: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = readFileSync(file, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i]!);
    if (heredoc) {
      const body: string[] = [];
      for (i++; i < lines.length && lines[i] !== heredoc[2]; i++) body.push(lines[i]!);
      outputs[heredoc[1]!] = body.join('\n');
    } else if (lines[i]!.includes('=')) {
      const at = lines[i]!.indexOf('=');
      outputs[lines[i]!.slice(0, at)] = lines[i]!.slice(at + 1);
    }
  }
  return outputs;
}

/** Runs steps in order as a runner does; returns what each did and whether the job failed. */
export async function runSteps(steps: Record<string, unknown>[], context: ExpressionContext, environment: RunnerEnvironment): Promise<{ records: StepRecord[]; failed: boolean }> {
  const records: StepRecord[] = [];
  for (const [index, step] of steps.entries()) {
    const id = typeof step['id'] === 'string' ? step['id'] : `step-${index}`;
    const name = typeof step['name'] === 'string' ? step['name'] : typeof step['uses'] === 'string' ? step['uses'] : String(step['run']).split('\n')[0]!;
    if (!condition(step, context)) {
      records.push({ name, kind: 'skipped' });
      context.steps[id] = { outputs: {}, outcome: 'skipped' };
      continue;
    }
    const stepEnv: Record<string, string> = {};
    for (const [key, raw] of Object.entries((step['env'] as Record<string, string> | undefined) ?? {})) stepEnv[key] = interpolate(raw, context);
    if (typeof step['uses'] === 'string') {
      const uses = step['uses'].replace(/@.*$/, '');
      const handler = environment.uses[uses];
      if (!handler) throw new Error(`no handler for uses: ${step['uses']}`);
      const withInputs: Record<string, string> = {};
      for (const [key, raw] of Object.entries((step['with'] as Record<string, string> | undefined) ?? {})) withInputs[key] = interpolate(raw, context);
      let outcome: 'success' | 'failure' = 'success';
      let outputs: Record<string, string> = {};
      try {
        outputs = (await handler(withInputs, context)) ?? {};
      } catch {
        outcome = 'failure';
      }
      context.steps[id] = { outputs, outcome };
      if (outcome === 'failure') context.failed = true;
      records.push({ name, kind: 'uses', exitCode: outcome === 'success' ? 0 : 1 });
      continue;
    }
    if (step['shell'] !== undefined && step['shell'] !== 'bash') throw new Error(`step ${name}: only bash steps are run here`);
    const temp = environment.env?.['RUNNER_TEMP'] ?? mkdtempSync(join(environment.workspace, '.runner-temp-'));
    const outputFile = join(mkdtempSync(join(temp, 'output-')), 'output');
    const summaryFile = join(mkdtempSync(join(temp, 'summary-')), 'summary');
    writeFileSync(outputFile, '');
    writeFileSync(summaryFile, '');
    const cwd = typeof step['working-directory'] === 'string' ? interpolate(step['working-directory'], context) : environment.workspace;
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: environment.workspace,
      RUNNER_TEMP: temp,
      GITHUB_OUTPUT: outputFile,
      GITHUB_STEP_SUMMARY: summaryFile,
      ...(environment.actionPath !== undefined ? { GITHUB_ACTION_PATH: environment.actionPath } : {}),
      ...environment.env,
      ...stepEnv,
    };
    const { exitCode, output } = await bash(interpolate(String(step['run']), context), env, cwd);
    appendFileSync(environment.summaryFile, readFileSync(summaryFile, 'utf8'));
    context.steps[id] = { outputs: readOutputs(outputFile), outcome: exitCode === 0 ? 'success' : 'failure' };
    if (exitCode !== 0) context.failed = true;
    records.push({ name, kind: 'run', exitCode, output });
  }
  return { records, failed: context.failed };
}

/** The inputs of a composite action as the runner sets them: each `with` value, else the input's default. */
export function actionInputs(action: Record<string, unknown>, given: Record<string, string>): Record<string, string> {
  const declared = (action['inputs'] as Record<string, { default?: string; required?: string }>) ?? {};
  for (const key of Object.keys(given)) if (!Object.hasOwn(declared, key)) throw new Error(`the action has no input ${key}`);
  const inputs: Record<string, string> = {};
  for (const [key, input] of Object.entries(declared)) inputs[key] = given[key] ?? input.default ?? '';
  return inputs;
}

/** Runs a composite action (its `runs.steps`) with `with` inputs; returns its steps and its outputs. */
export async function runCompositeAction(
  action: Record<string, unknown>,
  given: Record<string, string>,
  environment: RunnerEnvironment & { actionPath: string },
): Promise<{ records: StepRecord[]; failed: boolean; outputs: Record<string, string> }> {
  const runs = action['runs'] as { using: string; steps: Record<string, unknown>[] };
  if (runs.using !== 'composite') throw new Error(`runs.using is ${runs.using}, not composite`);
  const temp = environment.env?.['RUNNER_TEMP'] ?? environment.workspace;
  const context: ExpressionContext = {
    inputs: actionInputs(action, given),
    github: { action_path: environment.actionPath, workspace: environment.workspace },
    runner: { temp },
    steps: {},
    failed: false,
  };
  const result = await runSteps(runs.steps, context, environment);
  const outputs: Record<string, string> = {};
  for (const [key, output] of Object.entries((action['outputs'] as Record<string, { value: string }> | undefined) ?? {})) outputs[key] = interpolate(output.value, context);
  return { ...result, outputs };
}
