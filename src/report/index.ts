// Reporters: console (live, from runner events), JUnit XML, JSON and HTML, and writeReports.
export type { ReportEvent, ReportListener } from './events.js';
export { ConsoleReporter, ConsoleFormatter, renderConsoleReport, useColour } from './console.js';
export type { ConsoleOutput, ConsoleReporterOptions } from './console.js';
export { renderJUnit } from './junit.js';
export type { JUnitOptions } from './junit.js';
export { renderJson, parseJsonReport, JSON_REPORT_FORMAT, JSON_REPORT_VERSION } from './json.js';
export { renderHtml } from './html.js';
export type { HtmlOptions } from './html.js';
export { renderMarkdown, escapeMarkdown } from './markdown.js';
export type { MarkdownOptions } from './markdown.js';
export { writeReports } from './write.js';
export type { ReportPaths, WriteReportsOptions, WrittenReport } from './write.js';
export { countsLine, isFailing, isStrict } from './format.js';
export { ReportError, ReportFormatError, ReportValueError, ReportWriteError } from './errors.js';
export { proxyRunResult, proxyCaseId, type ProxyReportInput } from './proxy-run.js';
