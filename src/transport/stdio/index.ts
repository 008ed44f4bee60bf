// stdio transport: the child-process client connection, the piped one (a server running in this
// process) and the server over this process's stdio.
export { spawnStdio, StdioClientConnection } from './client.js';
export type { StdioClientOptions, ExitInfo } from './client.js';
export { serveStdio, StdioServerConnection } from './server.js';
export type { StdioServerOptions } from './server.js';
export { splitCommandLine, CommandLineError } from './shell-words.js';
export { LineDecoder } from './line-decoder.js';
export type { LineConnectionOptions } from './line-connection.js';
export { connectPiped, PipedStdioConnection } from './piped.js';
export type { PipedServe, PipedServer, PipedServerEnds } from './piped.js';
