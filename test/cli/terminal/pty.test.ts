// `mock-client` in a real pseudo-terminal: tmux runs the CLI (from source, through tsx) against a
// WebTransport mock server this test started, and send-keys types as a person would: a destination,
// a date the server refuses, a valid date, Enter for the default, a choice by its number, y. The
// pane must show the refusal and the final result, and the command must exit 0. A second run
// presses Ctrl-C at the first prompt: the interaction is cancelled and the command exits 130. A
// third presses Ctrl-C during a long tools/call (a real SIGINT, readline not reading), whose
// progress must be a single bar redrawn in place.
// No timing assertions: the pane is polled until the text appears, within a generous deadline.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellQuote } from '../../../src/harness/rerun.js';
import { startMockServer, type RunningMockServer } from '../../../src/peer/server/index.js';
import { cliArgs } from '../../support/cli.js';

const TMUX = '/usr/bin/tmux';
const hasTmux = existsSync(TMUX);
const run = promisify(execFile);
/** A private tmux server: its own socket, ended by this test alone. */
const socket = `mcp-flow-mock-client-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const tmuxEnv = { ...process.env, TERM: 'xterm-256color' };

async function tmux(...args: string[]): Promise<string> {
  const { stdout } = await run(TMUX, ['-L', socket, ...args], { env: tmuxEnv });
  return stdout;
}

/** The pane's text, wrapped lines joined, with its scrollback. */
function capture(session: string): Promise<string> {
  return tmux('capture-pane', '-p', '-J', '-S', '-500', '-t', session);
}

/** Polls the pane until `text` shows (liveness deadline only), and returns what it showed. */
async function waitFor(session: string, text: string | RegExp, deadlineMs = 60_000): Promise<string> {
  const end = Date.now() + deadlineMs;
  for (;;) {
    const pane = await capture(session);
    if (typeof text === 'string' ? pane.includes(text) : text.test(pane)) return pane;
    if (Date.now() > end) throw new Error(`the pane never showed ${String(text)}; it shows:\n${pane}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Types `keys` then Enter (send-keys -l sends them literally). */
async function type(session: string, keys: string): Promise<void> {
  if (keys !== '') await tmux('send-keys', '-t', session, '-l', keys);
  await tmux('send-keys', '-t', session, 'Enter');
}

let server: RunningMockServer;
let started = false;

/** Starts the CLI in a new tmux session; the shell prints its exit status and keeps the pane open. */
async function startCli(session: string, ...args: string[]): Promise<void> {
  const command = [process.execPath, ...cliArgs('mock-client', ...args)].map(shellQuote).join(' ');
  await tmux('new-session', '-d', '-s', session, '-x', '200', '-y', '50', '-c', process.cwd(), `${command}; echo "[exit $?]"; sleep 600`);
  started = true;
}

describe.skipIf(!hasTmux)(`mock-client in a pseudo-terminal${hasTmux ? '' : ' (skipped: /usr/bin/tmux is not installed)'}`, () => {
  beforeAll(async () => {
    server = await startMockServer({ transport: 'wt' });
  });

  afterAll(async () => {
    if (started) await tmux('kill-server').catch(() => undefined);
    await server?.close();
  });

  // Each step polls the pane within its own liveness deadline; each run as a whole (tsx starting
  // node from source, on a loaded machine) gets a generous upper bound.
  it('answers a choice by number and a date the server refuses, then a valid date, and completes', async () => {
    const session = 'booking';
    await startCli(session, '--url', server.url, '--cert-hash', server.certificateHash!, '--tool', 'booking');
    await waitFor(session, 'Enter destination:');
    await type(session, 'Lisbon');
    await waitFor(session, 'Departure date for Lisbon:');
    await type(session, '2023-05-01');
    await waitFor(session, 'invalid: Date before 2024-01-01');
    await type(session, '2030-06-15');
    await waitFor(session, 'How many travellers?');
    await type(session, '');
    await waitFor(session, /Choose \(a number 1-3 or a value\)/);
    await type(session, '2');
    await waitFor(session, 'Book business to Lisbon on 2030-06-15 for 1? (y/n)');
    await type(session, 'y');
    const pane = await waitFor(session, '[exit ');
    expect(pane).toContain('invalid: Date before 2024-01-01');
    expect(pane).toContain('suggestion: Use a date on or after 2024-01-01');
    expect(pane).toContain('  2) Business (business)');
    expect(pane).toContain('completed: Booked business to Lisbon on 2030-06-15 for 1');
    expect(pane).toContain('"reference": "BK-Lisbon-2030-06-15"');
    expect(pane).toContain('[exit 0]');
  }, 300_000);

  it('Ctrl-C at a prompt cancels the interaction and exits 130', async () => {
    const session = 'interrupt';
    await startCli(session, '--url', server.url, '--cert-hash', server.certificateHash!, '--tool', 'booking');
    await waitFor(session, 'Enter destination:');
    await tmux('send-keys', '-t', session, 'C-c');
    const pane = await waitFor(session, '[exit ');
    expect(pane).toContain('cancelling (Ctrl-C again to quit at once)');
    expect(pane).toMatch(/^cancelled$/m);
    expect(pane).toContain('[exit 130]');
  }, 300_000);

  it('Ctrl-C during a plain tools/call (a real SIGINT) sends the cancel and exits 130; progress is one redrawn bar', async () => {
    const session = 'slow';
    await startCli(session, '--url', server.url, '--cert-hash', server.certificateHash!, '--tool', 'slow', '--args', '{"steps":100000,"stepMs":20}');
    await waitFor(session, /\] \d+\/100000 step \d+ of 100000/);
    await tmux('send-keys', '-t', session, 'C-c');
    const pane = await waitFor(session, '[exit ');
    expect(pane.match(/step \d+ of 100000/g)).toHaveLength(1);
    expect(pane).toContain('cancelling (Ctrl-C again to quit at once)');
    expect(pane).toMatch(/^cancelled$/m);
    expect(pane).toContain('[exit 130]');
  }, 300_000);
});
