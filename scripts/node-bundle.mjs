// What every esbuild bundle built here with its packages inside shares (the CLI bundle,
// scripts/bundle-cli.mjs; the test fixtures bundled per test process, test/support/bundle.ts):
// the packages that must stay outside, and the shim the CommonJS inside needs.

/** Native, optional: the WebTransport library imports its HTTP/3 addon by name, from node_modules. */
export const OUTSIDE = ['@fails-components/webtransport-transport-http3-quiche'];

/** CommonJS packages inside (debug, under the WebTransport library) require node's modules: an ES module has no `require` of its own. */
export const REQUIRE_SHIM = { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" };
