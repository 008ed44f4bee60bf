// DownloadFile without a server: a stream written through the sink with a byte progress bar on a
// TTY (none elsewhere), the length verified against --expect-bytes or the announced size, a reset
// or short stream failing with the file removed, inline content, an unwritable path.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CliUsageError } from '../../../src/cli/errors.js';
import { DownloadFile } from '../../../src/cli/terminal/download.js';

const dir = mkdtempSync(join(tmpdir(), 'download-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function tty() {
  let text = '';
  return { out: { write: (chunk: string) => (text += chunk), isTTY: true, columns: 60 }, text: () => text };
}

async function writeThrough(download: DownloadFile, chunks: number[][], end: 'close' | 'abort' = 'close') {
  const writer = download.sink({ requestId: 7, streamTag: 1 })!.getWriter();
  for (const chunk of chunks) await writer.write(Uint8Array.from(chunk));
  if (end === 'close') await writer.close();
  else await writer.abort(new Error('execution stream (request 7, tag 1) was reset'));
}

describe('DownloadFile', () => {
  it('writes the stream, draws a byte bar on a TTY and verifies the expected length', async () => {
    const path = join(dir, 'ok.bin');
    const screen = tty();
    const download = new DownloadFile(path, { progress: screen.out, expectedBytes: 4 });
    await writeThrough(download, [[1, 2], [3, 4]]);
    const verdict = await download.finishStream({ requestId: 7, streamTag: 1, bytes: 4, complete: true });
    expect(verdict).toEqual({ ok: true, bytes: 4, verified: true, text: `downloaded 4 bytes from execution stream 1 of request 7 to ${path} (length verified)` });
    expect([...readFileSync(path)]).toEqual([1, 2, 3, 4]);
    expect(screen.text()).toBe('\r[##########----------]  50% 2 B / 4 B\x1b[K\r[####################] 100% 4 B / 4 B\x1b[K\n');
  });

  it('endProgress ends the drawn bar with one newline, so output that follows starts on its own line', async () => {
    const screen = tty();
    const download = new DownloadFile(join(dir, 'end.bin'));
    const withBar = new DownloadFile(join(dir, 'bar.bin'), { progress: screen.out });
    download.endProgress();
    const writer = withBar.sink({ requestId: 1, streamTag: 1 })!.getWriter();
    await writer.write(Uint8Array.from([1]));
    withBar.endProgress();
    withBar.endProgress();
    expect(screen.text()).toBe('\r1 B received\x1b[K\n');
    await writer.close();
  });

  it('draws nothing where the progress output is not a TTY; without an announced length it says it did not verify', async () => {
    const path = join(dir, 'quiet.bin');
    let drawn = '';
    const download = new DownloadFile(path, { progress: { write: (text: string) => (drawn += text), isTTY: false } });
    await writeThrough(download, [[9]]);
    const verdict = await download.finishStream({ requestId: 7, streamTag: 1, bytes: 1, complete: true });
    expect(verdict.ok && verdict.verified).toBe(false);
    expect(verdict.text).toContain('(length not announced, not verified)');
    expect(drawn).toBe('');
  });

  it('the announced size counts when no --expect-bytes was given; a difference fails and removes the file', async () => {
    const path = join(dir, 'short.bin');
    const download = new DownloadFile(path);
    await writeThrough(download, [[1, 2, 3]]);
    const verdict = await download.finishStream({ requestId: 7, streamTag: 1, bytes: 3, complete: true, expectedBytes: 5 });
    expect(verdict).toEqual({ ok: false, text: `download failed: execution stream 1 of request 7: 3 bytes received, 5 expected (length differs); ${path} removed` });
    expect(existsSync(path)).toBe(false);
  });

  it('an incomplete stream fails with its reason and the $/streamError text', async () => {
    const path = join(dir, 'failed.bin');
    const download = new DownloadFile(path);
    await writeThrough(download, [[1]], 'abort');
    download.streamError({ requestId: 7, streamTag: 1, error: 'disk on fire' });
    const verdict = await download.finishStream({ requestId: 7, streamTag: 1, bytes: 1, complete: false, failure: 'the stream failed after 1 bytes: reset' });
    expect(verdict.ok).toBe(false);
    expect(verdict.text).toContain('the stream failed after 1 bytes: reset ($/streamError: disk on fire)');
    expect(existsSync(path)).toBe(false);
  });

  it('a stream the result does not name (a tool that failed mid-transfer) is never a download', async () => {
    const path = join(dir, 'unnamed.bin');
    const download = new DownloadFile(path);
    await writeThrough(download, [[1, 2]], 'abort');
    const verdict = await download.unnamedStream();
    expect(verdict?.ok).toBe(false);
    expect(verdict?.text).toMatch(/execution stream 1 of request 7 was reset \(execution stream \(request 7, tag 1\) was reset\) after 2 bytes, and the result does not name it/);
    expect(existsSync(path)).toBe(false);
    expect(await new DownloadFile(join(dir, 'none.bin')).unnamedStream()).toBeUndefined();
  });

  it('only the first stream goes to the file', () => {
    const download = new DownloadFile(join(dir, 'first.bin'));
    expect(download.sink({ requestId: 1, streamTag: 1 })).toBeDefined();
    expect(download.sink({ requestId: 1, streamTag: 2 })).toBeUndefined();
    expect(download.stream).toEqual({ requestId: 1, streamTag: 1 });
  });

  it('inline content is written and checked against the announced size', async () => {
    const path = join(dir, 'inline.csv');
    const download = new DownloadFile(path);
    await download.writeInline(Buffer.from('id,value\n'));
    expect(await download.finishInline('inline file export.csv', 9)).toMatchObject({ ok: true, bytes: 9, verified: true });
    const wrong = new DownloadFile(join(dir, 'inline-wrong.csv'));
    await wrong.writeInline(Buffer.from('id'));
    expect(await wrong.finishInline('inline file x.csv', 9)).toMatchObject({ ok: false });
  });

  it('a path that cannot be written is a CliUsageError naming --download', () => {
    expect(() => new DownloadFile(join(dir, 'no-such-dir', 'x.bin'))).toThrow(CliUsageError);
    expect(() => new DownloadFile(join(dir, 'no-such-dir', 'x.bin'))).toThrow(/^--download: cannot write .*x\.bin: ENOENT$/);
  });
});
