#!/usr/bin/env node
// Writes a baseline from a JSON report: every case that failed (FAIL, WARN or TIMEOUT) becomes an
// expected failure, with its reason. Review the file, commit it, and pass it with --baseline.
//
//   node write-baseline.mjs conformance-reports/report.json conformance-baseline.json
//
// Plain Node, no dependencies, so it can be copied into any repository.
import { readFileSync, writeFileSync } from 'node:fs';

const FORMAT = 'mcp-flow-conformance/run-result';
const EXPECTED_FAILURE_VERDICTS = new Set(['FAIL', 'WARN', 'TIMEOUT']);

const [reportFile, baselineFile] = process.argv.slice(2);
if (reportFile === undefined || baselineFile === undefined) {
  console.error('usage: node write-baseline.mjs <report.json> <baseline.json>');
  process.exit(2);
}

let report;
try {
  report = JSON.parse(readFileSync(reportFile, 'utf8'));
} catch (error) {
  console.error(`error: cannot read the JSON report ${reportFile}: ${error.message}`);
  process.exit(2);
}
if (report?.format !== FORMAT || !Array.isArray(report.cases)) {
  console.error(`error: ${reportFile} is not an mcp-flow-conformance JSON report (format ${JSON.stringify(report?.format)})`);
  process.exit(2);
}

const expectedFailures = {};
for (const result of report.cases) {
  if (EXPECTED_FAILURE_VERDICTS.has(result.verdict)) expectedFailures[result.id] = result.reason ?? result.verdict;
}
writeFileSync(baselineFile, `${JSON.stringify({ version: 1, expectedFailures }, null, 2)}\n`);
console.log(`${baselineFile}: ${Object.keys(expectedFailures).length} expected failure(s) from ${reportFile}`);
