// The terminal Answerer fed from streams instead of a TTY: questions written, typed lines turned into
// values, the server's refusal shown before the question comes again, unreadable files asked again,
// progress lines (and in-place redraws on a terminal), Ctrl-C, a cancelling signal, input that ends.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalAnswerer } from '../../../src/cli/terminal/answerer.js';
import { TerminalInputEndedError } from '../../../src/cli/terminal/errors.js';
import { CANCEL } from '../../../src/peer/client/index.js';

const state = { sessionId: 's1', attempt: 1 };

function harness(options: { terminal?: boolean; onInterrupt?: () => void; signal?: AbortSignal } = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const answerer = new TerminalAnswerer({ input, output: Object.assign(output, { columns: 60 }), ...options });
  answerers.push(answerer);
  return { input, answerer, written: () => written };
}

const answerers: TerminalAnswerer[] = [];
afterEach(() => {
  for (const answerer of answerers.splice(0)) answerer.close();
});

describe('TerminalAnswerer over streams', () => {
  it('asks, echoes the typed line and returns the value for the prompt type', async () => {
    const { input, answerer, written } = harness();
    const asked = answerer.ask({ type: 'number', message: 'How many travellers?', defaultValue: 1, validation: { min: 1, max: 9 } }, state);
    input.write('3\n');
    await expect(asked).resolves.toBe(3);
    expect(written()).toBe('How many travellers? (1 to 9) [1] 3\n');
  });

  it('lists choices and takes a number', async () => {
    const { input, answerer, written } = harness();
    input.write('2\n');
    const value = await answerer.ask(
      { type: 'choice', message: 'Select class:', choices: [{ value: 'economy', label: 'Economy' }, { value: 'business', label: 'Business' }] },
      state,
    );
    expect(value).toBe('business');
    expect(written()).toContain('Select class:\n  1) Economy (economy)\n  2) Business (business)\nChoose (a number 1-2 or a value; Enter to skip) 2\n');
  });

  it('shows the refusal and its suggestion before asking again', async () => {
    const { input, answerer, written } = harness();
    input.write('2030-06-15\n');
    const value = await answerer.ask(
      { type: 'date', message: 'Departure date:' },
      { sessionId: 's1', attempt: 2, rejected: { message: 'Date before 2024-01-01', suggestion: 'Use a date on or after 2024-01-01' } },
    );
    expect(value).toBe('2030-06-15');
    expect(written()).toBe('invalid: Date before 2024-01-01\nsuggestion: Use a date on or after 2024-01-01\nDeparture date: (YYYY-MM-DD; Enter to skip) 2030-06-15\n');
  });

  it('an unreadable file is reported and the question asked again, nothing sent for it', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    let written = '';
    output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
    const loaded: string[] = [];
    const answerer = new TerminalAnswerer({
      input,
      output,
      loadFile: (path) => {
        loaded.push(path);
        if (path === 'missing.png') throw new Error('cannot read the file "missing.png": ENOENT');
        return { name: path, size: 1, content: 'AA==' };
      },
    });
    answerers.push(answerer);
    input.write('missing.png\nok.png\n');
    await expect(answerer.ask({ type: 'file', message: 'Avatar', validation: { required: true } }, state)).resolves.toEqual({ name: 'ok.png', size: 1, content: 'AA==' });
    expect(loaded).toEqual(['missing.png', 'ok.png']);
    expect(written).toBe('Avatar: (a file path) missing.png\ninvalid: cannot read the file "missing.png": ENOENT\nAvatar: (a file path) ok.png\n');
  });

  it('lines typed ahead answer the next questions in order', async () => {
    const { input, answerer } = harness();
    input.write('Lisbon\ny\n');
    await new Promise((resolve) => setImmediate(resolve));
    await expect(answerer.ask({ type: 'text', message: 'Destination' }, state)).resolves.toBe('Lisbon');
    await expect(answerer.ask({ type: 'confirm', message: 'Sure?' }, state)).resolves.toBe(true);
  });

  it('input that ends while a question waits is a TerminalInputEndedError naming the prompt', async () => {
    const { input, answerer } = harness();
    const asked = answerer.ask({ type: 'text', message: 'Enter name' }, state);
    input.end();
    await expect(asked).rejects.toThrow(TerminalInputEndedError);
    await expect(answerer.ask({ type: 'text', message: 'Enter email' }, state)).rejects.toThrow(/"Enter email"/);
  });

  it('a waiting question answers CANCEL when the signal aborts', async () => {
    const controller = new AbortController();
    const { answerer } = harness({ signal: controller.signal });
    const asked = answerer.ask({ type: 'text', message: 'Enter name' }, state);
    controller.abort();
    await expect(asked).resolves.toBe(CANCEL);
    await expect(answerer.ask({ type: 'text', message: 'again' }, state)).resolves.toBe(CANCEL);
  });

  it('progress: one line per change without a terminal', () => {
    const { answerer, written } = harness();
    answerer.progress({ requestId: 1, progress: 1, total: 4, message: 'Step 1 of 4' });
    answerer.progress({ requestId: 1, progress: 1, total: 4, message: 'Step 1 of 4' });
    answerer.progress({ requestId: 1, progress: 2, total: 4 });
    expect(written()).toBe('[#####---------------] 1/4 Step 1 of 4\n[##########----------] 2/4\n');
  });

  it('on a terminal: progress redrawn in place, ended by a newline before the next question; Ctrl-C calls onInterrupt', async () => {
    let interrupts = 0;
    const { input, answerer, written } = harness({ terminal: true, onInterrupt: () => interrupts++ });
    answerer.progress({ requestId: 1, progress: 1, total: 2 });
    answerer.progress({ requestId: 1, progress: 2, total: 2 });
    expect(written()).toContain('\r[##########----------] 1/2\x1b[K\r[####################] 2/2\x1b[K');
    const asked = answerer.ask({ type: 'text', message: 'Name' }, state);
    expect(written()).toMatch(/2\/2\x1b\[K\n/);
    input.write('\x03');
    expect(interrupts).toBe(1);
    input.write('Ada\r');
    await expect(asked).resolves.toBe('Ada');
  });

  it('message() prints server text on its own line', () => {
    const { answerer, written } = harness();
    answerer.message('Checking availability for Lisbon');
    expect(written()).toBe('Checking availability for Lisbon\n');
  });
});
