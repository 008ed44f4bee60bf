#!/usr/bin/env node
// The installed command: runs the compiled CLI (npm ci / npm run build produce dist/).
import { main } from '../dist/cli/main.js';

process.exitCode = await main(process.argv.slice(2));
