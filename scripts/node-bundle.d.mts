// Types of scripts/node-bundle.mjs, for the TypeScript that imports it (test/support/bundle.ts).
export declare const OUTSIDE: string[];
export declare const REQUIRE_SHIM: { js: string };
