// Mutation sites of the mutation bench: where a simple source change would break the protocol
// logic of a mock peer. Four operators, each a one-token edit of the TypeScript source:
//   comparison       a comparison negated (=== <-> !==, == <-> !=, < <-> >=, > <-> <=)
//   drop-branch      an if whose branch returns or throws (a validation, an early return) never taken
//   error-code       an error code constant replaced by another code of its table (or -32xxx literal)
//   skip-transition  an assignment to a state member (state, status, currentPrompt...) left out
// Code that only switches the mock's faults on (`faults.has(...)`) is left alone: with no fault
// on, a mutant there changes nothing. Pure: parses with the TypeScript compiler API, runs nothing.
import ts from 'typescript';
import { BINDING_ERROR, FLOW_ERROR, JSONRPC_ERROR, MCP_ERROR } from '../../src/protocol/error-codes.js';

export type MutationOperator = 'comparison' | 'drop-branch' | 'error-code' | 'skip-transition';
export const MUTATION_OPERATORS: readonly MutationOperator[] = ['comparison', 'drop-branch', 'error-code', 'skip-transition'];

export interface MutationSite {
  /** Repository-relative path, `/`-separated. */
  file: string;
  /** 1-based line and column of the replaced text. */
  line: number;
  column: number;
  operator: MutationOperator;
  /** Character offsets of the replaced text in the file. */
  start: number;
  end: number;
  original: string;
  replacement: string;
}

/** The error code tables a mutant may swap within (the same table, another code). */
export const ERROR_TABLES: Readonly<Record<string, Readonly<Record<string, number>>>> = { JSONRPC_ERROR, MCP_ERROR, FLOW_ERROR, BINDING_ERROR };

/** The standard codes a -32xxx literal is swapped among. */
const STANDARD_CODES = [-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32003, -32004];

const NEGATED: Readonly<Partial<Record<ts.SyntaxKind, string>>> = {
  [ts.SyntaxKind.EqualsEqualsEqualsToken]: '!==',
  [ts.SyntaxKind.ExclamationEqualsEqualsToken]: '===',
  [ts.SyntaxKind.EqualsEqualsToken]: '!=',
  [ts.SyntaxKind.ExclamationEqualsToken]: '==',
  [ts.SyntaxKind.LessThanToken]: '>=',
  [ts.SyntaxKind.GreaterThanEqualsToken]: '<',
  [ts.SyntaxKind.GreaterThanToken]: '<=',
  [ts.SyntaxKind.LessThanEqualsToken]: '>',
};

/** Members whose assignment is a state transition of a session, a prompt or an outcome. */
const STATE_MEMBER = /^#?(state|status|phase|current\w*|step\w*|initiali[sz]ed|active|answered|cancelled\w*|finished|completed?|closed|ready|done|protocolVersion|capabilities|encoding|lastFinished\w*|success)$/i;

/** Code that only turns a fault on: mutating it changes nothing while no fault is on. */
const FAULT_SWITCH = /\bfaults?\b|#faults\b|\bF\.[a-zA-Z]+\b/;

/** The expression a node belongs to, up to the statement or declaration that holds it. */
function rootExpression(node: ts.Node): ts.Node {
  let current = node;
  while (current.parent && (ts.isExpression(current.parent) || ts.isSpreadAssignment(current.parent) || ts.isPropertyAssignment(current.parent) || ts.isShorthandPropertyAssignment(current.parent))) {
    current = current.parent;
  }
  return current;
}

function inConstructor(node: ts.Node): boolean {
  for (let current = node.parent; current; current = current.parent) {
    if (ts.isConstructorDeclaration(current)) return true;
    if (ts.isFunctionLike(current)) return false;
  }
  return false;
}

/** A branch that leaves: a return or throw, alone or as the last statement of its block. */
function leaves(statement: ts.Statement): boolean {
  if (ts.isReturnStatement(statement) || ts.isThrowStatement(statement)) return true;
  if (ts.isBlock(statement)) {
    const last = statement.statements[statement.statements.length - 1];
    return last !== undefined && (ts.isReturnStatement(last) || ts.isThrowStatement(last));
  }
  return false;
}

/** Another member of the table with another code: the next one in declaration order. */
function otherMember(table: Readonly<Record<string, number>>, member: string): string | undefined {
  const names = Object.keys(table);
  const at = names.indexOf(member);
  if (at < 0) return undefined;
  for (let step = 1; step < names.length; step++) {
    const candidate = names[(at + step) % names.length]!;
    if (table[candidate] !== table[member]) return candidate;
  }
  return undefined;
}

/** Every mutation site of one file, in source order. */
export function findMutationSites(file: string, text: string): MutationSite[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const sites: MutationSite[] = [];
  const add = (operator: MutationOperator, start: number, end: number, replacement: string) => {
    const { line, character } = source.getLineAndCharacterOfPosition(start);
    sites.push({ file, line: line + 1, column: character + 1, operator, start, end, original: text.slice(start, end), replacement });
  };
  // In a fault's own branch (`if (faults.has(...)) throw ...`), or in an expression that consults one.
  const faultSwitch = (node: ts.Node): boolean => {
    if (FAULT_SWITCH.test(rootExpression(node).getText(source))) return true;
    for (let child = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
      if (ts.isIfStatement(parent) && child === parent.thenStatement && FAULT_SWITCH.test(parent.expression.getText(source))) return true;
    }
    return false;
  };

  const visit = (node: ts.Node): void => {
    if (ts.isBinaryExpression(node)) {
      const negated = NEGATED[node.operatorToken.kind];
      if (negated !== undefined && !faultSwitch(node)) add('comparison', node.operatorToken.getStart(source), node.operatorToken.getEnd(), negated);
    }
    if (ts.isIfStatement(node) && leaves(node.thenStatement) && !FAULT_SWITCH.test(node.expression.getText(source)) && !faultSwitch(node)) {
      add('drop-branch', node.expression.getStart(source), node.expression.getEnd(), 'false');
    }
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && ts.isIdentifier(node.name)) {
      const table = ERROR_TABLES[node.expression.text];
      const other = table ? otherMember(table, node.name.text) : undefined;
      // A code compared with (e.g. `code === JSONRPC_ERROR.MethodNotFound`) is a reading switch, not a code sent.
      const compared = ts.isBinaryExpression(node.parent) && NEGATED[node.parent.operatorToken.kind] !== undefined;
      if (other !== undefined && !compared && !faultSwitch(node)) add('error-code', node.name.getStart(source), node.name.getEnd(), other);
    }
    if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken && ts.isNumericLiteral(node.operand)) {
      const code = -Number(node.operand.text);
      const at = STANDARD_CODES.indexOf(code);
      if (at >= 0 && !faultSwitch(node)) add('error-code', node.getStart(source), node.getEnd(), String(STANDARD_CODES[(at + 1) % STANDARD_CODES.length]));
    }
    if (
      ts.isExpressionStatement(node) &&
      ts.isBinaryExpression(node.expression) &&
      node.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      (ts.isPropertyAccessExpression(node.expression.left) || ts.isElementAccessExpression(node.expression.left)) &&
      !inConstructor(node) &&
      !FAULT_SWITCH.test(node.getText(source)) &&
      !faultSwitch(node)
    ) {
      const left = node.expression.left;
      const name = ts.isPropertyAccessExpression(left) ? left.name.getText(source) : left.argumentExpression.getText(source).replace(/^['"]|['"]$/g, '');
      if (STATE_MEMBER.test(name)) add('skip-transition', node.getStart(source), node.getEnd(), ';');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return sites;
}

/** The file's text with the site's mutation applied. */
export function applyMutation(text: string, site: MutationSite): string {
  if (text.slice(site.start, site.end) !== site.original) {
    throw new Error(`${site.file}:${site.line}: the source changed since the site was found (expected ${JSON.stringify(site.original)})`);
  }
  return `${text.slice(0, site.start)}${site.replacement}${text.slice(site.end)}`;
}

/** One line naming the mutant: `file:line:col operator: original -> replacement`. */
export function describeSite(site: MutationSite): string {
  const flat = (text: string) => {
    const one = text.replace(/\s+/g, ' ').trim();
    return one.length > 70 ? `${one.slice(0, 67)}...` : one;
  };
  return `${site.file}:${site.line}:${site.column} ${site.operator}: ${flat(site.original)} -> ${flat(site.replacement)}`;
}
