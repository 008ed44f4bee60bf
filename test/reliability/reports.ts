// What every run of the reliability suite must leave behind: reports that parse (JSON) and are
// valid JUnit (the XSD CI tools read), with a verdict for every selected case.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';
import type { RunResult } from '../../src/harness/result.js';
import { parseJsonReport } from '../../src/report/json.js';

const XSD = readFileSync(fileURLToPath(new URL('../fixtures/junit/junit.xsd', import.meta.url)), 'utf8');

export interface WrittenReports {
  run: RunResult;
  /** Size of report.json in bytes. */
  jsonBytes: number;
  /** Why junit.xml is not valid JUnit (empty when it is). */
  junitErrors: readonly string[];
}

/** Reads the reports a `--reports <dir>` run wrote. */
export async function readReports(dir: string): Promise<WrittenReports> {
  const jsonPath = join(dir, 'report.json');
  const run = parseJsonReport(readFileSync(jsonPath, 'utf8'));
  const junit = await validateXML({
    xml: { fileName: 'junit.xml', contents: readFileSync(join(dir, 'junit.xml'), 'utf8') },
    schema: { fileName: 'junit.xsd', contents: XSD },
  });
  return { run, jsonBytes: statSync(jsonPath).size, junitErrors: junit.valid ? [] : junit.errors.map((error) => error.message) };
}
