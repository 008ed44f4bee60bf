#!/usr/bin/env node
// The installed command: runs the compiled CLI as bundled by the build (npm ci / npm run build
// produce dist/; scripts/bundle-cli.mjs says why it is bundled), or as tsc compiled it where no
// bundle was made (the container image, a build by tsc alone).
import { existsSync } from 'node:fs';

const bundled = new URL('../dist/bundle/main.mjs', import.meta.url);
const { main } = existsSync(bundled) ? await import(bundled.href) : await import('../dist/src/cli/main.js');

/** How long the process may outlive its command (what it still writes); past it, it exits. */
const EXIT_GRACE_MS = 2000;

// `... | head` closes our stdout early: stop quietly instead of dying on an uncaught EPIPE.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const code = await main(process.argv.slice(2));
process.exitCode = code;
// The command is over (its reports written, its servers stopped): the process ends when what it
// still writes (a session close on its way out) is out. A socket or a timer that a target left
// behind must not keep it alive: past a grace period it exits anyway.
setTimeout(() => process.exit(code), EXIT_GRACE_MS).unref();
