import { mkdtemp, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReportWriteError } from '../../src/report/errors.js';
import { parseJsonReport } from '../../src/report/json.js';
import { writeReports } from '../../src/report/write.js';
import { sampleRun } from './run-fixture.js';

describe('writeReports', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'mcp-flow-reports-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes each requested report, creating folders', async () => {
    const run = sampleRun();
    const paths = { junit: join(dir, 'a/b/junit.xml'), json: join(dir, 'c/run.json'), html: join(dir, 'd/e/f/report.html') };
    const written = await writeReports(run, paths);
    expect(written.map((report) => [report.format, report.path])).toEqual([
      ['junit', paths.junit],
      ['json', paths.json],
      ['html', paths.html],
    ]);
    expect(parseJsonReport(await readFile(paths.json, 'utf8'))).toEqual(run);
    expect(await readFile(paths.junit, 'utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites /);
    const page = await readFile(paths.html, 'utf8');
    expect(page.startsWith('<!doctype html>')).toBe(true);
    for (const report of written) expect(report.bytes).toBe((await readFile(report.path)).byteLength);
  });

  it('writes only what was asked for', async () => {
    const written = await writeReports(sampleRun(), { json: join(dir, 'only/run.json') });
    expect(written.map((report) => report.format)).toEqual(['json']);
    expect(await writeReports(sampleRun(), {})).toEqual([]);
  });

  it('passes strict on to the JUnit report', async () => {
    const path = join(dir, 'strict/junit.xml');
    await writeReports(sampleRun(), { junit: path }, { strict: true });
    expect(await readFile(path, 'utf8')).toContain('type="WARN"');
  });

  it('names the path it could not write', async () => {
    const folder = join(dir, 'is-a-folder.html');
    await mkdir(folder);
    const asFolder = writeReports(sampleRun(), { html: folder });
    await expect(asFolder).rejects.toBeInstanceOf(ReportWriteError);
    await expect(asFolder).rejects.toMatchObject({ code: 'REPORT_WRITE_FAILED', path: folder, format: 'html' });

    const file = join(dir, 'plain-file');
    await writeFile(file, 'x');
    const underFile = join(file, 'sub/junit.xml');
    await expect(writeReports(sampleRun(), { junit: underFile })).rejects.toThrow(`cannot write the junit report to ${underFile}`);
  });
});
