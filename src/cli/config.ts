// The config file of the `server` command: `--config file.json`, or `mcp-flow-conformance.json` in
// the working directory when present. It holds what a CI job would otherwise put on a long command
// line; options given on the command line win over it (a --url or --stdio there replaces its target).
// Paths in it (baseline, reports, ca) are relative to the file. A field it cannot use is one line
// naming the file and the field.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CliUsageError } from './errors.js';

/** Found in the working directory when no --config is given. */
export const CONFIG_FILE = 'mcp-flow-conformance.json';

type FieldKind = 'string' | 'strings' | 'boolean' | 'number' | 'headers' | 'reports' | 'path';

/** Each field: its kind and the `server` option it stands for. */
const FIELDS: Record<string, { kind: FieldKind; option: string }> = {
  url: { kind: 'string', option: 'url' },
  stdio: { kind: 'string', option: 'stdio' },
  transport: { kind: 'string', option: 'transport' },
  headers: { kind: 'headers', option: 'header' },
  ca: { kind: 'path', option: 'ca' },
  certificateHash: { kind: 'string', option: 'certificate-hash' },
  http: { kind: 'number', option: 'http' },
  protocolVersion: { kind: 'string', option: 'protocol-version' },
  interactiveTools: { kind: 'strings', option: 'interactive-tool' },
  suites: { kind: 'strings', option: 'suite' },
  cases: { kind: 'strings', option: 'case' },
  exclude: { kind: 'strings', option: 'exclude' },
  shard: { kind: 'string', option: 'shard' },
  baseline: { kind: 'path', option: 'baseline' },
  strict: { kind: 'boolean', option: 'strict' },
  failOnStale: { kind: 'boolean', option: 'fail-on-stale' },
  reports: { kind: 'reports', option: 'reports' },
  workers: { kind: 'number', option: 'workers' },
  timeoutScale: { kind: 'number', option: 'timeout-scale' },
};

/** The options that name the target: the command line's replace the file's together. */
const TARGET_OPTIONS = ['url', 'stdio'];

export interface LoadedConfig {
  /** The file read (as given, or CONFIG_FILE). */
  file: string;
  /** The file's settings as the `server` command's parsed options (yargs keys). */
  args: Record<string, unknown>;
}

function closest(name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(FIELDS).find((field) => field.toLowerCase() === lower || field.toLowerCase().startsWith(lower.slice(0, 4)));
}

/** Reads and checks a config file; undefined when none is given and the working directory has none. */
export function loadConfig(given: string | undefined, cwd: string): LoadedConfig | undefined {
  const file = given ?? CONFIG_FILE;
  const path = resolve(cwd, file);
  if (given === undefined && !existsSync(path)) return undefined;
  const fail = (field: string, message: string): never => {
    throw new CliUsageError(file, field === '' ? message : `${field}: ${message}`);
  };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return fail('', `cannot read the config file (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return fail('', `not valid JSON (${(error as Error).message})`);
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail('', 'the config must be a JSON object');
  const base = dirname(path);
  const args: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(data as Record<string, unknown>)) {
    if (field === '$schema' || field === '//') continue;
    const spec = FIELDS[field];
    if (spec === undefined) {
      const hint = closest(field);
      fail(field, `unknown field${hint ? ` (did you mean ${hint}?)` : ''}; known: ${Object.keys(FIELDS).join(', ')}`);
    }
    switch (spec!.kind) {
      case 'string':
        if (typeof value !== 'string' || value.trim() === '') fail(field, 'must be a non-empty string');
        args[spec!.option] = value;
        break;
      case 'path':
        if (typeof value !== 'string' || value.trim() === '') fail(field, 'must be a path (a non-empty string)');
        args[spec!.option] = resolve(base, value as string);
        break;
      case 'strings': {
        const list = typeof value === 'string' ? [value] : value;
        if (!Array.isArray(list) || list.length === 0 || list.some((item) => typeof item !== 'string' || item.trim() === '')) {
          fail(field, 'must be a non-empty string or an array of non-empty strings');
        }
        args[spec!.option] = [...(list as string[])];
        break;
      }
      case 'boolean':
        if (typeof value !== 'boolean') fail(field, 'must be true or false');
        if (value === true) args[spec!.option] = true;
        break;
      case 'number':
        if (typeof value !== 'number' || !Number.isFinite(value)) fail(field, 'must be a number');
        args[spec!.option] = value;
        break;
      case 'headers': {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be an object of header names to string values');
        const lines: string[] = [];
        for (const [name, headerValue] of Object.entries(value as Record<string, unknown>)) {
          if (typeof headerValue !== 'string') fail(`${field}.${name}`, 'must be a string');
          lines.push(`${name}: ${headerValue as string}`);
        }
        args[spec!.option] = lines;
        break;
      }
      case 'reports': {
        if (typeof value === 'string' && value.trim() !== '') {
          args['reports'] = resolve(base, value);
          break;
        }
        if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(field, 'must be a folder (a string) or an object {"junit": path, "json": path, "html": path, "markdown": path}');
        for (const [format, reportPath] of Object.entries(value as Record<string, unknown>)) {
          if (format !== 'junit' && format !== 'json' && format !== 'html' && format !== 'markdown') fail(`${field}.${format}`, 'unknown report format (junit, json, html or markdown)');
          if (typeof reportPath !== 'string' || reportPath.trim() === '') fail(`${field}.${format}`, 'must be a path (a non-empty string)');
          args[format] = reportPath === '-' ? '-' : resolve(base, reportPath as string);
        }
        break;
      }
    }
  }
  return { file, args };
}

/**
 * The command line's options over the config's: each option given on the command line wins, and a
 * --url or --stdio there replaces the file's target (url, stdio and transport).
 */
export function mergeConfig(commandLine: Record<string, unknown>, config: LoadedConfig | undefined): Record<string, unknown> {
  if (config === undefined) return commandLine;
  const fromFile = { ...config.args };
  if (TARGET_OPTIONS.some((option) => commandLine[option] !== undefined)) {
    for (const option of [...TARGET_OPTIONS, 'transport']) delete fromFile[option];
  }
  // A report folder or file on the command line replaces the file's reports.
  if (['reports', 'junit', 'json', 'html', 'markdown'].some((option) => commandLine[option] !== undefined)) {
    for (const option of ['reports', 'junit', 'json', 'html', 'markdown']) delete fromFile[option];
  }
  const merged: Record<string, unknown> = { ...fromFile };
  for (const [key, value] of Object.entries(commandLine)) if (value !== undefined) merged[key] = value;
  return merged;
}
