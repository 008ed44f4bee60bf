#!/usr/bin/env node
// The installed command: runs the compiled CLI as bundled by the build (npm ci / npm run build
// produce dist/; scripts/bundle-cli.mjs says why it is bundled).
import { main } from '../dist/bundle/main.mjs';

// `... | head` closes our stdout early: stop quietly instead of dying on an uncaught EPIPE.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
