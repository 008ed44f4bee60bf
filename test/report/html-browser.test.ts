// The HTML report in a real browser: Debian's Chromium (/usr/bin/chromium, installed by
// scripts/install-chromium.sh) driven by playwright-core opens a report of a run against the mock
// server with a fault on, from a file: URL. The summary shows the run's counts, the page's script
// runs under its CSP, and the failing case's transcript shows once a user expands the case.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runServerConformance, startMockServer, type RunResult, VERDICTS } from '../../src/index.js';
import { countsLine } from '../../src/report/index.js';

const CHROMIUM = '/usr/bin/chromium';
const MISSING = existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is not installed (scripts/install-chromium.sh installs Debian's chromium when run as root)`;
const LAUNCH_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const BROKEN = 'mcp-core/results-are-objects';
const CASES = [BROKEN, 'mcp-core/unknown-method-error-shape', 'mcp-core/tools-list'];

describe('HTML report in Chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-flow-html-browser-'));
  const html = join(dir, 'report.html');
  let run: RunResult;
  let context: BrowserContext | undefined;
  let page: Page;

  beforeAll(async () => {
    if (MISSING) return;
    const server = await startMockServer({ transport: 'http', faults: ['ping-non-empty-result'] });
    try {
      run = await runServerConformance({ url: server.url, suites: 'mcp-core', cases: CASES, reports: { html } });
    } finally {
      await server.close();
    }
    context = await chromium.launchPersistentContext(join(dir, 'profile'), { executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS });
    page = await context.newPage();
    await page.goto(pathToFileURL(html).href);
  });

  afterAll(async () => {
    await context?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the counts of the run in the summary and the counts line', async (test) => {
    if (MISSING) return test.skip(MISSING);
    expect(run.summary.FAIL).toBe(1);
    for (const verdict of VERDICTS) {
      await expect(page.locator(`.summary .tile[data-only="${verdict}"] .n`).textContent()).resolves.toBe(String(run.summary[verdict]));
    }
    await expect(page.locator('.summary .tile.total .n').textContent()).resolves.toBe(String(run.summary.total));
    await expect(page.locator('#counts-line').textContent()).resolves.toBe(countsLine(run.summary));
    await expect(page.locator('h1 .status').textContent()).resolves.toBe('1 failing');
    // The page's own script ran (its CSP nonce let it): it counted the cases it shows.
    await expect(page.locator('#shown').textContent()).resolves.toBe(`${run.summary.total} of ${run.summary.total} cases shown`);
  });

  it("shows the failing case's transcript once the user filters to FAIL and expands it", async (test) => {
    if (MISSING) return test.skip(MISSING);
    const failing = page.locator(`details.case[data-verdict="FAIL"]`);
    const transcript = failing.locator('table.transcript');
    // Start from everything collapsed, as a reader who closed the failing cases would.
    await page.click('#collapse');
    await expect(transcript.isVisible()).resolves.toBe(false);
    // Only FAIL: one case left on the page.
    await page.click('.summary .tile[data-only="FAIL"]');
    await expect(page.locator('#shown').textContent()).resolves.toBe(`1 of ${run.summary.total} cases shown`);
    await expect(page.locator('details.case:not(.hidden)').count()).resolves.toBe(1);
    await expect(failing.locator(':scope > summary code').textContent()).resolves.toBe(BROKEN);
    // Expand it.
    await failing.locator(':scope > summary').click();
    await expect(transcript.isVisible()).resolves.toBe(true);
    const broken = run.cases.find((c) => c.id === BROKEN)!;
    await expect(transcript.locator('tbody tr').count()).resolves.toBe(broken.transcript!.length);
    const text = await transcript.innerText();
    expect(text).toContain('"method": "ping"');
    expect(text).toContain('"pong": true');
    await expect(failing.locator('.rerun code').innerText()).resolves.toBe(broken.rerun);
  });
});
