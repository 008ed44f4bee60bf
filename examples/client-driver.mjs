import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
const url = process.argv.at(-1), scenario = process.env.MCP_FLOW_SCENARIO;
const context = JSON.parse(process.env.MCP_FLOW_CONTEXT ?? '{}');
const client = new Client({ name: 'my-client', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
let ok = true;
if (scenario === 'initialize' && client.getServerCapabilities()?.tools) for (let page = {}; !page.tools || page.nextCursor !== undefined; ) page = await client.listTools(page.nextCursor ? { cursor: page.nextCursor } : {});
if (scenario === 'tools-call') for (let i = 0; i < (context.count ?? 1); i++)
  ok = (await client.callTool({ name: context.tool, arguments: context.arguments }).then((r) => !r.isError, () => false)) && ok;
await client.close(); process.exit(ok ? 0 : 1);
