// Writes the requested report files, creating their folders.
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { RunResult } from '../harness/result.js';
import { ReportWriteError } from './errors.js';
import { renderHtml, type HtmlOptions } from './html.js';
import { renderJson } from './json.js';
import { renderJUnit, type JUnitOptions } from './junit.js';
import { renderMarkdown, type MarkdownOptions } from './markdown.js';

export interface ReportPaths {
  junit?: string;
  json?: string;
  html?: string;
  /** The Markdown summary (for CI job summaries). */
  markdown?: string;
}

export interface WriteReportsOptions {
  /** WARN fails (JUnit <failure>, HTML "failing"). Default: the run's `options.strict`. */
  strict?: boolean;
}

export interface WrittenReport {
  format: 'junit' | 'json' | 'html' | 'markdown';
  /** Absolute path written. */
  path: string;
  bytes: number;
}

/**
 * Renders and writes each requested report. Every report is rendered before any file is written,
 * so a run that cannot be rendered leaves no partial set behind; a path that cannot be written
 * throws ReportWriteError naming it.
 */
export async function writeReports(run: RunResult, paths: ReportPaths, options: WriteReportsOptions = {}): Promise<WrittenReport[]> {
  const strict = options.strict === undefined ? {} : { strict: options.strict };
  const jobs: { format: WrittenReport['format']; path: string; text: string }[] = [];
  if (paths.junit !== undefined) jobs.push({ format: 'junit', path: paths.junit, text: renderJUnit(run, strict satisfies JUnitOptions) });
  if (paths.json !== undefined) jobs.push({ format: 'json', path: paths.json, text: renderJson(run) });
  if (paths.html !== undefined) jobs.push({ format: 'html', path: paths.html, text: renderHtml(run, strict satisfies HtmlOptions) });
  if (paths.markdown !== undefined) jobs.push({ format: 'markdown', path: paths.markdown, text: renderMarkdown(run, strict satisfies MarkdownOptions) });

  const written: WrittenReport[] = [];
  for (const job of jobs) {
    const path = resolve(job.path);
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, job.text, 'utf8');
    } catch (error) {
      throw new ReportWriteError(job.format, job.path, error);
    }
    written.push({ format: job.format, path, bytes: Buffer.byteLength(job.text, 'utf8') });
  }
  return written;
}
