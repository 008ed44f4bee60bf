// The real peers the interop tests run, each as an installed program: its package version and how
// node runs it over stdio and over Streamable HTTP (test/interop/peer-process.ts runs them).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PeerProgram } from './peer-process.js';

const require = createRequire(import.meta.url);

/** An installed package's folder and version (looked up in node_modules: not every package exports package.json or has a main). */
function installed(name: string): { version: string; folder: string } {
  for (const modules of require.resolve.paths(name) ?? []) {
    const manifest = join(modules, name, 'package.json');
    if (existsSync(manifest)) return { version: (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version, folder: dirname(manifest) };
  }
  throw new Error(`${name} is not installed (no node_modules/${name}/package.json)`);
}

const everything = installed('@modelcontextprotocol/server-everything');
const memory = installed('@modelcontextprotocol/server-memory');
const sdk = installed('@modelcontextprotocol/sdk');
const sdkV2 = installed('@modelcontextprotocol/server');

/** The @modelcontextprotocol/sdk every v1 peer runs on (the project's copy: none has a nested one). */
export const SDK_VERSION = sdk.version;
export const SDK_V2_VERSION = sdkV2.version;

/**
 * @modelcontextprotocol/server-everything, the MCP reference server. GZIP_ALLOWED_DOMAINS=localhost
 * (its own option) keeps the tool sweeps' call of gzip-file-as-resource, whose default input is a
 * file on raw.githubusercontent.com, from reaching the internet: the tool refuses the URL at once.
 */
export const SERVER_EVERYTHING = {
  name: '@modelcontextprotocol/server-everything',
  version: everything.version,
  stdio: { args: [join(everything.folder, 'dist', 'index.js'), 'stdio'], env: { GZIP_ALLOWED_DOMAINS: 'localhost' } },
  http: { args: [join(everything.folder, 'dist', 'index.js'), 'streamableHttp'], env: { GZIP_ALLOWED_DOMAINS: 'localhost' } },
} as const satisfies { name: string; version: string; stdio: PeerProgram; http: PeerProgram };

const example = (file: string): PeerProgram => ({ args: [join(sdk.folder, 'dist', 'esm', 'examples', 'server', `${file}.js`)] });

/** The SDK's example servers over Streamable HTTP, unmodified (each listens on a fixed port, which the preload replaces). */
export const SDK_EXAMPLES = {
  /** Sessions, an event store (resumability: SSE priming events), the GET stream, DELETE. */
  simpleStreamableHttp: example('simpleStreamableHttp'),
  /** Sessions, answers as one JSON body (`enableJsonResponse`), GET answered 405. */
  jsonResponseStreamableHttp: example('jsonResponseStreamableHttp'),
  /** No sessions: a fresh server and transport per POST, GET and DELETE answered 405. */
  simpleStatelessStreamableHttp: example('simpleStatelessStreamableHttp'),
} as const satisfies Record<string, PeerProgram>;

const v2Fixture = fileURLToPath(new URL('./sdk-v2-server.mjs', import.meta.url));

/** A server on the SDK v2 (@modelcontextprotocol/server), written as its guides show (test/interop/sdk-v2-server.mjs). */
export const SDK_V2_FIXTURE = {
  stdio: { args: [v2Fixture, 'stdio'] },
  http: { args: [v2Fixture, 'http'] },
} as const satisfies Record<string, PeerProgram>;

/** @modelcontextprotocol/server-memory over stdio; its knowledge graph lives in `memoryFile` (one per test file). */
export function serverMemory(memoryFile: string): PeerProgram {
  return { args: [join(memory.folder, 'dist', 'index.js')], env: { MEMORY_FILE_PATH: memoryFile } };
}
export const SERVER_MEMORY_VERSION = memory.version;
