/**
 * Generates schemas/core/<protocolVersion>/: one JSON Schema (2020-12) per MCP core message, a
 * `defs` definition file of shared types, and an examples file beside every message schema.
 *
 * The description below is this project's own, written from the MCP specification text of each
 * protocol version; it does not read the official schema files (a test cross-checks against them).
 * Version differences are spelled out as `since(...)` conditions next to the field they affect.
 *
 * Run: `npx tsx scripts/generate-core-schemas.ts` (writes the files) or with `--check` (exit 1 if the
 * committed files differ). test/schema/core-generated.test.ts asserts the committed files are current.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const CORE_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type ProtocolVersion = (typeof CORE_PROTOCOL_VERSIONS)[number];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = { [key: string]: Json };
type Direction = 'client-to-server' | 'server-to-client' | 'both';
type Kind = 'request' | 'result' | 'notification' | 'error';

const ID_BASE = 'https://mcp-flow-conformance.dev/schemas/';
const DRAFT = 'https://json-schema.org/draft/2020-12/schema';
const DEFS_FILE = 'defs.definition.schema.json';

/** True when `v` is `first` or a later protocol version (versions are ISO dates, so they sort as strings). */
const since = (v: ProtocolVersion, first: ProtocolVersion): boolean => v >= first;

// ---------------------------------------------------------------------------------------------
// Small schema builders. Nothing here sets additionalProperties: false, because MCP allows extra
// members everywhere; every object/array/string keyword sits next to its `type` (ajv strictTypes).
// ---------------------------------------------------------------------------------------------

type Props = Record<string, Schema | undefined>;

function obj(properties: Props, required: string[] = [], extra: Schema = {}): Schema {
  const props: Schema = {};
  for (const [name, schema] of Object.entries(properties)) if (schema !== undefined) props[name] = schema;
  const out: Schema = { type: 'object', properties: props };
  const req = required.filter((name) => name in props);
  if (req.length !== required.length) {
    throw new Error(`generator bug: required ${JSON.stringify(required)} names a property that is not defined`);
  }
  if (req.length > 0) out.required = req;
  return { ...out, ...extra };
}
const described = (description: string, schema: Schema): Schema => ({ description, ...schema });
const str = (description?: string): Schema => (description ? { type: 'string', description } : { type: 'string' });
const uri = (description?: string): Schema => ({ type: 'string', format: 'uri', ...(description ? { description } : {}) });
const uriTemplate = (): Schema => ({ type: 'string', format: 'uri-template' });
const base64 = (): Schema => ({ type: 'string', format: 'byte', description: 'Base64-encoded data.' });
const int = (description?: string): Schema => (description ? { type: 'integer', description } : { type: 'integer' });
const num = (description?: string): Schema => (description ? { type: 'number', description } : { type: 'number' });
const bool = (description?: string): Schema => (description ? { type: 'boolean', description } : { type: 'boolean' });
const arr = (items: Schema, description?: string): Schema => ({ type: 'array', items, ...(description ? { description } : {}) });
const constStr = (value: string): Schema => ({ type: 'string', const: value });
const enumStr = (values: string[]): Schema => ({ type: 'string', enum: values });
const anyOf = (...schemas: Schema[]): Schema => ({ anyOf: schemas });
/** An open object: any members allowed (MCP's `{ [key: string]: unknown }` and capability objects). */
const anyObj = (description?: string): Schema => (description ? { type: 'object', description } : { type: 'object' });
const fraction = (description: string): Schema => ({ type: 'number', minimum: 0, maximum: 1, description });
const metaObj = (): Schema => anyObj('Reserved for protocol-level metadata (_meta).');
const cond = <T>(when: boolean, value: T): T | undefined => (when ? value : undefined);

/** A reference into the defs file: local inside it, relative (resolved against $id) from a message schema. */
type Ref = (name: string) => Schema;
const localRef: Ref = (name) => ({ $ref: `#/$defs/${name}` });
const defsRef: Ref = (name) => ({ $ref: `${DEFS_FILE}#/$defs/${name}` });

// ---------------------------------------------------------------------------------------------
// Shared types (the defs file of each version)
// ---------------------------------------------------------------------------------------------

function definitions(v: ProtocolVersion): Record<string, Schema> {
  const r = localRef;
  const v0326 = since(v, '2025-03-26');
  const v0618 = since(v, '2025-06-18');
  const v1125 = since(v, '2025-11-25');
  const meta = cond(v0618, metaObj());
  const icons = cond(v1125, arr(r('Icon'), 'Icons a client may show for this item.'));
  const d: Record<string, Schema> = {};

  d.RequestId = described('A JSON-RPC request id: a string or an integer (never null in MCP).', anyOf({ type: 'string' }, { type: 'integer' }));
  d.ProgressToken = described('Associates progress notifications with the request that asked for them.', anyOf({ type: 'string' }, { type: 'integer' }));
  d.Cursor = str('An opaque pagination position.');
  d.Role = enumStr(['user', 'assistant']);
  d.LoggingLevel = described('Syslog severities (RFC 5424).', enumStr(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']));
  d.RequestMeta = described(
    'The _meta member of request params; progressToken asks the receiver for progress notifications.',
    obj({ progressToken: r('ProgressToken') }),
  );
  d.ErrorObject = described(
    'The JSON-RPC error member.',
    obj({ code: int('The error code.'), message: str('A short description of the error.'), data: { description: 'Extra information; any JSON value.' } }, ['code', 'message']),
  );

  d.Annotations = described(
    'Hints about how a client should use or show an item.',
    obj({
      audience: arr(r('Role')),
      priority: fraction('Importance from 0 (least) to 1 (most).'),
      lastModified: cond(v0618, str('ISO 8601 time of the last change.')),
    }),
  );
  const content = (type: string, props: Props, required: string[]): Schema =>
    obj({ type: constStr(type), ...props, annotations: r('Annotations'), _meta: meta }, ['type', ...required]);
  d.TextContent = content('text', { text: str() }, ['text']);
  d.ImageContent = content('image', { data: base64(), mimeType: str() }, ['data', 'mimeType']);
  if (v0326) d.AudioContent = content('audio', { data: base64(), mimeType: str() }, ['data', 'mimeType']);
  d.TextResourceContents = obj({ uri: uri(), mimeType: str(), text: str(), _meta: meta }, ['uri', 'text']);
  d.BlobResourceContents = obj({ uri: uri(), mimeType: str(), blob: base64(), _meta: meta }, ['uri', 'blob']);
  d.EmbeddedResource = content('resource', { resource: anyOf(r('TextResourceContents'), r('BlobResourceContents')) }, ['resource']);

  const resourceProps = (): Props => ({
    uri: uri(),
    name: str(),
    title: cond(v0618, str('Display name.')),
    description: str(),
    mimeType: str(),
    annotations: r('Annotations'),
    size: int('Size of the raw content in bytes, if known.'),
    icons,
    _meta: meta,
  });
  d.Resource = obj(resourceProps(), ['uri', 'name']);
  if (v0618) d.ResourceLink = obj({ type: constStr('resource_link'), ...resourceProps() }, ['type', 'uri', 'name']);
  d.ResourceTemplate = obj(
    { uriTemplate: uriTemplate(), name: str(), title: cond(v0618, str()), description: str(), mimeType: str(), annotations: r('Annotations'), icons, _meta: meta },
    ['uriTemplate', 'name'],
  );
  d.ContentBlock = described(
    'A content item of a tool result or prompt message.',
    anyOf(
      ...[r('TextContent'), r('ImageContent')],
      ...(v0326 ? [r('AudioContent')] : []),
      ...(v0618 ? [r('ResourceLink')] : []),
      r('EmbeddedResource'),
    ),
  );

  if (v1125) {
    d.Icon = obj(
      { src: uri('http(s) or data: URI of the icon.'), mimeType: str(), sizes: arr(str(), 'Sizes such as "48x48" or "any".'), theme: enumStr(['light', 'dark']) },
      ['src'],
    );
  }
  d.Implementation = described(
    'Name and version of an MCP implementation.',
    obj(
      {
        name: str(),
        title: cond(v0618, str()),
        version: str(),
        description: cond(v1125, str()),
        icons,
        websiteUrl: cond(v1125, uri()),
      },
      ['name', 'version'],
    ),
  );

  const open = anyObj;
  d.ClientCapabilities = obj({
    experimental: { type: 'object', additionalProperties: open() },
    roots: obj({ listChanged: bool() }),
    sampling: v1125 ? obj({ context: open(), tools: open() }) : open(),
    elicitation: v1125 ? obj({ form: open(), url: open() }) : cond(v0618, open()),
    tasks: cond(
      v1125,
      obj({
        list: open(),
        cancel: open(),
        requests: obj({ sampling: obj({ createMessage: open() }), elicitation: obj({ create: open() }) }),
      }),
    ),
  });
  d.ServerCapabilities = obj({
    experimental: { type: 'object', additionalProperties: open() },
    logging: open(),
    completions: cond(v0326, open()),
    prompts: obj({ listChanged: bool() }),
    resources: obj({ subscribe: bool(), listChanged: bool() }),
    tools: obj({ listChanged: bool() }),
    tasks: cond(v1125, obj({ list: open(), cancel: open(), requests: obj({ tools: obj({ call: open() }) }) })),
  });

  const toolSchema = (what: string): Schema =>
    described(
      `${what}: a JSON Schema object with type "object".`,
      obj(
        {
          $schema: cond(v1125, str()),
          type: constStr('object'),
          properties: { type: 'object', additionalProperties: open() },
          required: arr(str()),
        },
        ['type'],
      ),
    );
  if (v0326) {
    d.ToolAnnotations = described(
      'Untrusted hints about a tool\'s behaviour.',
      obj({ title: str(), readOnlyHint: bool(), destructiveHint: bool(), idempotentHint: bool(), openWorldHint: bool() }),
    );
  }
  if (v1125) {
    d.ToolExecution = obj({ taskSupport: enumStr(['forbidden', 'optional', 'required']) });
    d.ToolChoice = obj({ mode: enumStr(['auto', 'required', 'none']) });
  }
  d.Tool = obj(
    {
      name: str(),
      title: cond(v0618, str()),
      description: str(),
      inputSchema: toolSchema('Arguments the tool takes'),
      outputSchema: cond(v0618, toolSchema('Shape of the structuredContent of its results')),
      annotations: cond(v0326, r('ToolAnnotations')),
      execution: cond(v1125, r('ToolExecution')),
      icons,
      _meta: meta,
    },
    ['name', 'inputSchema'],
  );

  d.PromptArgument = obj({ name: str(), title: cond(v0618, str()), description: str(), required: bool() }, ['name']);
  d.Prompt = obj(
    { name: str(), title: cond(v0618, str()), description: str(), arguments: arr(r('PromptArgument')), icons, _meta: meta },
    ['name'],
  );
  d.PromptMessage = obj({ role: r('Role'), content: r('ContentBlock') }, ['role', 'content']);
  d.PromptReference = obj({ type: constStr('ref/prompt'), name: str(), title: cond(v0618, str()) }, ['type', 'name']);
  d.ResourceTemplateReference = obj({ type: constStr('ref/resource'), uri: uriTemplate() }, ['type', 'uri']);
  d.Root = obj({ uri: uri('A file:// URI.'), name: str(), _meta: meta }, ['uri']);

  d.ModelHint = obj({ name: str('A full or partial model name.') });
  d.ModelPreferences = obj({
    hints: arr(r('ModelHint')),
    costPriority: fraction('How much cost matters, 0..1.'),
    speedPriority: fraction('How much latency matters, 0..1.'),
    intelligencePriority: fraction('How much capability matters, 0..1.'),
  });
  if (v1125) {
    d.ToolUseContent = obj({ type: constStr('tool_use'), id: str(), name: str(), input: anyObj(), _meta: metaObj() }, ['type', 'id', 'name', 'input']);
    d.ToolResultContent = obj(
      { type: constStr('tool_result'), toolUseId: str(), content: arr(r('ContentBlock')), structuredContent: anyObj(), isError: bool(), _meta: metaObj() },
      ['type', 'toolUseId', 'content'],
    );
    d.SamplingMessageContentBlock = anyOf(r('TextContent'), r('ImageContent'), r('AudioContent'), r('ToolUseContent'), r('ToolResultContent'));
    d.SamplingContent = described(
      'One sampling content block or an array of them.',
      anyOf(r('TextContent'), r('ImageContent'), r('AudioContent'), r('ToolUseContent'), r('ToolResultContent'), arr(r('SamplingMessageContentBlock'))),
    );
  } else {
    d.SamplingContent = anyOf(r('TextContent'), r('ImageContent'), ...(v0326 ? [r('AudioContent')] : []));
  }
  d.SamplingMessage = obj({ role: r('Role'), content: r('SamplingContent'), _meta: cond(v1125, metaObj()) }, ['role', 'content']);

  if (v0618) {
    const withDefault = (schema: Schema): Schema | undefined => cond(v1125, schema);
    d.StringSchema = obj(
      {
        type: constStr('string'),
        title: str(),
        description: str(),
        minLength: int(),
        maxLength: int(),
        format: enumStr(['email', 'uri', 'date', 'date-time']),
        default: withDefault(str()),
      },
      ['type'],
    );
    d.NumberSchema = obj(
      { type: enumStr(['number', 'integer']), title: str(), description: str(), minimum: num(), maximum: num(), default: withDefault(num()) },
      ['type'],
    );
    d.BooleanSchema = obj({ type: constStr('boolean'), title: str(), description: str(), default: bool() }, ['type']);
    const legacyEnum = obj(
      { type: constStr('string'), title: str(), description: str(), enum: arr(str()), enumNames: arr(str(), 'Display names, parallel to enum.'), default: withDefault(str()) },
      ['type', 'enum'],
    );
    if (v1125) {
      const titledOption = obj({ const: str(), title: str() }, ['const', 'title']);
      d.UntitledSingleSelectEnumSchema = obj({ type: constStr('string'), title: str(), description: str(), enum: arr(str()), default: str() }, ['type', 'enum']);
      d.TitledSingleSelectEnumSchema = obj({ type: constStr('string'), title: str(), description: str(), oneOf: arr(titledOption), default: str() }, ['type', 'oneOf']);
      const multi = (items: Schema): Schema =>
        obj({ type: constStr('array'), title: str(), description: str(), minItems: int(), maxItems: int(), items, default: arr(str()) }, ['type', 'items']);
      d.UntitledMultiSelectEnumSchema = multi(obj({ type: constStr('string'), enum: arr(str()) }, ['type', 'enum']));
      d.TitledMultiSelectEnumSchema = multi(obj({ anyOf: arr(titledOption) }, ['anyOf']));
      d.LegacyTitledEnumSchema = legacyEnum;
      d.PrimitiveSchemaDefinition = anyOf(
        r('StringSchema'),
        r('NumberSchema'),
        r('BooleanSchema'),
        r('UntitledSingleSelectEnumSchema'),
        r('TitledSingleSelectEnumSchema'),
        r('UntitledMultiSelectEnumSchema'),
        r('TitledMultiSelectEnumSchema'),
        r('LegacyTitledEnumSchema'),
      );
    } else {
      d.EnumSchema = legacyEnum;
      d.PrimitiveSchemaDefinition = anyOf(r('StringSchema'), r('NumberSchema'), r('BooleanSchema'), r('EnumSchema'));
    }
    d.ElicitationRequestedSchema = described(
      'A flat JSON Schema object whose properties are primitive schemas.',
      obj(
        {
          $schema: cond(v1125, str()),
          type: constStr('object'),
          properties: { type: 'object', additionalProperties: r('PrimitiveSchemaDefinition') },
          required: arr(str()),
        },
        ['type', 'properties'],
      ),
    );
  }

  if (v1125) {
    d.TaskStatus = enumStr(['working', 'input_required', 'completed', 'failed', 'cancelled']);
    d.TaskMetadata = described('Asks the receiver to run the request as a task.', obj({ ttl: int('Requested lifetime in milliseconds.') }));
    d.Task = obj(
      {
        taskId: str(),
        status: r('TaskStatus'),
        statusMessage: str(),
        createdAt: str('ISO 8601 creation time.'),
        lastUpdatedAt: str('ISO 8601 time of the last status change.'),
        ttl: described('Lifetime in milliseconds from creation; null for unlimited.', anyOf({ type: 'integer' }, { type: 'null' })),
        pollInterval: int('Suggested polling interval in milliseconds.'),
      },
      ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttl'],
    );
    d.CreateTaskResult = described(
      'The answer to a task-augmented request (e.g. tools/call with params.task).',
      obj({ task: r('Task'), _meta: metaObj() }, ['task']),
    );
    d.ElicitRequestFormParams = obj(
      { mode: constStr('form'), message: str(), requestedSchema: r('ElicitationRequestedSchema'), task: r('TaskMetadata'), _meta: r('RequestMeta') },
      ['message', 'requestedSchema'],
    );
    d.ElicitRequestURLParams = obj(
      { mode: constStr('url'), message: str(), elicitationId: str(), url: uri(), task: r('TaskMetadata'), _meta: r('RequestMeta') },
      ['mode', 'message', 'elicitationId', 'url'],
    );
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------------

interface Example {
  description: string;
  instance: Json;
}
interface InvalidExample extends Example {
  keyword: string;
  instancePath?: string;
}
interface Examples {
  valid: Example[];
  invalid: InvalidExample[];
}

interface RequestSpec {
  kind: 'request';
  method: string;
  direction: Direction;
  description: string;
  /** Definition names in the official schema of that version. */
  official: string;
  resultOfficial: string;
  params: Schema;
  paramsRequired: boolean;
  /** The `result` member of the success response. */
  result: Schema;
  examples: { request: Examples; result: Examples };
  /**
   * 2025-11-25: requests that may carry params.task can be answered with a CreateTaskResult instead;
   * that answer gets its own schema, `<slug>-task.result`, with these examples.
   */
  taskResultExamples?: Examples;
}
interface NotificationSpec {
  kind: 'notification';
  method: string;
  direction: Direction;
  description: string;
  official: string;
  params: Schema;
  paramsRequired: boolean;
  examples: Examples;
}
type MessageSpec = RequestSpec | NotificationSpec;

const m = defsRef;
const j = (value: unknown): Json => value as Json;
const rq = (method: string, params?: unknown, id: string | number = 1): Json =>
  j({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const ok = (result: unknown, id: string | number = 1): Json => j({ jsonrpc: '2.0', id, result });
const nt = (method: string, params?: unknown): Json => j({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
const valid = (description: string, instance: Json): Example => ({ description, instance });
const invalid = (description: string, instance: Json, keyword: string, instancePath?: string): InvalidExample => ({
  description,
  instance,
  keyword,
  ...(instancePath === undefined ? {} : { instancePath }),
});
const ex = (validOnes: Example[], invalidOnes: InvalidExample[]): Examples => ({ valid: validOnes, invalid: invalidOnes });

/** Every core message of protocol version `v`, with examples written for that version. */
function messages(v: ProtocolVersion): MessageSpec[] {
  const v0326 = since(v, '2025-03-26');
  const v0618 = since(v, '2025-06-18');
  const v1125 = since(v, '2025-11-25');

  /** Request params: the given members plus _meta (every request's params carry it, except 2025-11-25 tasks/*). */
  const rp = (props: Props, required: string[] = []): Schema => obj({ ...props, _meta: m('RequestMeta') }, required);
  const np = (props: Props, required: string[] = []): Schema => obj({ ...props, _meta: metaObj() }, required);
  const res = (props: Props, required: string[] = []): Schema => obj({ ...props, _meta: metaObj() }, required);
  const paginated = rp({ cursor: m('Cursor') });
  const page = (member: string, item: string): Schema => res({ [member]: arr(m(item)), nextCursor: m('Cursor') }, [member]);
  const titled = <T extends object>(value: T, title: string): T => (v0618 ? { ...value, title } : value);

  const request = (
    method: string,
    direction: Direction,
    official: string,
    resultOfficial: string,
    description: string,
    params: Schema,
    paramsRequired: boolean,
    result: Schema,
    examples: { request: Examples; result: Examples },
  ): RequestSpec => ({ kind: 'request', method, direction, official, resultOfficial, description, params, paramsRequired, result, examples });
  const notification = (
    method: string,
    direction: Direction,
    official: string,
    description: string,
    params: Schema,
    paramsRequired: boolean,
    examples: Examples,
  ): NotificationSpec => ({ kind: 'notification', method, direction, official, description, params, paramsRequired, examples });

  // Realistic example data, shaped for the version.
  const icon = { src: 'https://example.com/icon-dark.svg', mimeType: 'image/svg+xml', sizes: ['any'], theme: 'dark' };
  const clientInfo = {
    ...titled({ name: 'example-client', version: '1.4.0' }, 'Example Client'),
    ...(v1125 ? { description: 'An example MCP host', websiteUrl: 'https://example.com/client', icons: [icon] } : {}),
  };
  const serverInfo = titled({ name: 'weather-server', version: '2.0.1' }, 'Weather Server');
  const weatherTool = {
    ...titled({ name: 'get_weather' }, 'Get weather'),
    description: 'Current weather for a city',
    inputSchema: {
      ...(v1125 ? { $schema: 'https://json-schema.org/draft/2020-12/schema' } : {}),
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    ...(v0326 ? { annotations: { readOnlyHint: true, openWorldHint: true } } : {}),
    ...(v0618 ? { outputSchema: { type: 'object', properties: { temperatureC: { type: 'number' } }, required: ['temperatureC'] } } : {}),
    ...(v1125 ? { execution: { taskSupport: 'optional' }, icons: [{ src: 'https://example.com/weather.png', mimeType: 'image/png', sizes: ['48x48'] }] } : {}),
  };
  const readme = {
    uri: 'file:///project/README.md',
    name: 'README.md',
    ...(v0618 ? { title: 'Project README' } : {}),
    description: 'Project overview',
    mimeType: 'text/markdown',
    size: 2048,
    annotations: { audience: ['user', 'assistant'], priority: 0.8 },
  };
  const text = (t: string) => ({ type: 'text', text: t });
  const png = { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', mimeType: 'image/png' };
  const wav = { type: 'audio', data: 'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=', mimeType: 'audio/wav' };
  const task = { taskId: 'task-7f3a', status: 'working', statusMessage: 'Fetching forecast', createdAt: '2025-11-25T10:00:00Z', lastUpdatedAt: '2025-11-25T10:00:05Z', ttl: 60000, pollInterval: 2000 };
  const clientCaps = {
    roots: { listChanged: true },
    sampling: v1125 ? { context: {}, tools: {} } : {},
    ...(v0618 ? { elicitation: v1125 ? { form: {}, url: {} } : {} } : {}),
    ...(v1125 ? { tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } } } : {}),
    experimental: { 'example.com/drafts': { enabled: true } },
  };
  const serverCaps = {
    logging: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    tools: { listChanged: true },
    ...(v0326 ? { completions: {} } : {}),
    ...(v1125 ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {}),
  };

  const specs: MessageSpec[] = [];

  // --- lifecycle ---------------------------------------------------------------------------
  specs.push(
    request(
      'initialize',
      'client-to-server',
      'InitializeRequest',
      'InitializeResult',
      'The first request of a session: the client offers its protocol version, capabilities and identity.',
      rp({ protocolVersion: str('The latest version the client supports.'), capabilities: m('ClientCapabilities'), clientInfo: m('Implementation') }, [
        'protocolVersion',
        'capabilities',
        'clientInfo',
      ]),
      true,
      res(
        {
          protocolVersion: str('The version the server chose for the session.'),
          capabilities: m('ServerCapabilities'),
          serverInfo: m('Implementation'),
          instructions: str('How to use the server, e.g. for a system prompt.'),
        },
        ['protocolVersion', 'capabilities', 'serverInfo'],
      ),
      {
        request: ex(
          [
            valid('client offering roots and sampling', rq('initialize', { protocolVersion: v, capabilities: clientCaps, clientInfo }, 0)),
            valid('minimal capabilities, string id', rq('initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 'cli', version: '0.1.0' } }, 'init-1')),
          ],
          [
            invalid('clientInfo is missing', rq('initialize', { protocolVersion: v, capabilities: {} }), 'required', '/params'),
            invalid('params are missing', rq('initialize'), 'required', ''),
            invalid('clientInfo.version is a number', rq('initialize', { protocolVersion: v, capabilities: {}, clientInfo: { name: 'cli', version: 1 } }), 'type', '/params/clientInfo/version'),
          ],
        ),
        result: ex(
          [
            valid('server offering tools, resources, prompts and logging', ok({ protocolVersion: v, capabilities: serverCaps, serverInfo, instructions: 'Ask for the weather by city name.' }, 0)),
            valid('server with no capabilities', ok({ protocolVersion: v, capabilities: {}, serverInfo: { name: 'empty', version: '1.0.0' } })),
          ],
          [
            invalid('serverInfo is missing', ok({ protocolVersion: v, capabilities: {} }), 'required', '/result'),
            invalid('resources.subscribe is a string', ok({ protocolVersion: v, capabilities: { resources: { subscribe: 'yes' } }, serverInfo }), 'type', '/result/capabilities/resources/subscribe'),
          ],
        ),
      },
    ),
    notification(
      'notifications/initialized',
      'client-to-server',
      'InitializedNotification',
      'Sent by the client after it received a successful initialize result.',
      np({}),
      false,
      ex(
        [valid('without params', nt('notifications/initialized')), valid('with empty params', nt('notifications/initialized', {}))],
        [
          invalid('carries an id, but jsonrpc is missing', j({ id: 1, method: 'notifications/initialized' }), 'required', ''),
          invalid('params is an array', nt('notifications/initialized', []), 'type', '/params'),
        ],
      ),
    ),
    request(
      'ping',
      'both',
      'PingRequest',
      'EmptyResult',
      'Liveness check; either side may send it and the receiver answers promptly with an empty result.',
      rp({}),
      false,
      res({}),
      {
        request: ex(
          [valid('plain ping', rq('ping', undefined, 42)), valid('ping with a progress token in _meta', rq('ping', { _meta: { progressToken: 'p-1' } }, 'ping-9'))],
          [
            invalid('id is null', j({ jsonrpc: '2.0', id: null, method: 'ping' }), 'anyOf', '/id'),
            invalid('id is missing', j({ jsonrpc: '2.0', method: 'ping' }), 'required', ''),
            invalid('progressToken is a boolean', rq('ping', { _meta: { progressToken: true } }), 'anyOf', '/params/_meta/progressToken'),
          ],
        ),
        result: ex(
          [valid('empty result', ok({}, 42))],
          [invalid('result is missing', j({ jsonrpc: '2.0', id: 42 }), 'required', ''), invalid('result is null', ok(null, 42), 'type', '/result')],
        ),
      },
    ),
    notification(
      'notifications/cancelled',
      'both',
      'CancelledNotification',
      'Tells the receiver that an earlier request is cancelled; no response to it is expected any more.' +
        (v1125 ? ' In 2025-11-25 requestId is optional (task cancellation uses tasks/cancel).' : ''),
      np({ requestId: m('RequestId'), reason: str() }, v1125 ? [] : ['requestId']),
      true,
      ex(
        [valid('cancel with a reason', nt('notifications/cancelled', { requestId: 7, reason: 'User pressed stop' })), valid('cancel a string id', nt('notifications/cancelled', { requestId: 'req-12' }))],
        [
          ...(v1125 ? [] : [invalid('requestId is missing', nt('notifications/cancelled', { reason: 'timeout' }), 'required', '/params')]),
          invalid('params are missing', nt('notifications/cancelled'), 'required', ''),
          invalid('reason is a number', nt('notifications/cancelled', { requestId: 7, reason: 408 }), 'type', '/params/reason'),
        ],
      ),
    ),
    notification(
      'notifications/progress',
      'both',
      'ProgressNotification',
      'Progress of a long-running request that carried params._meta.progressToken.',
      np({ progressToken: m('ProgressToken'), progress: num('Increases with each notification.'), total: num(), message: cond(v0326, str()) }, ['progressToken', 'progress']),
      true,
      ex(
        [
          valid('progress with total', nt('notifications/progress', { progressToken: 'upload-1', progress: 50, total: 100, ...(v0326 ? { message: 'Half way' } : {}) })),
          valid('integer token, fractional progress', nt('notifications/progress', { progressToken: 3, progress: 0.25 })),
        ],
        [
          invalid('progress is missing', nt('notifications/progress', { progressToken: 'upload-1' }), 'required', '/params'),
          invalid('progress is a string', nt('notifications/progress', { progressToken: 'upload-1', progress: '50%' }), 'type', '/params/progress'),
        ],
      ),
    ),
  );

  // --- resources -----------------------------------------------------------------------------
  const listRequestExamples = (method: string): Examples =>
    ex(
      [valid('first page', rq(method, undefined, 2)), valid('next page by cursor', rq(method, { cursor: 'eyJwYWdlIjoyfQ==' }, 3))],
      [invalid('cursor is a number', rq(method, { cursor: 2 }), 'type', '/params/cursor'), invalid('method is misspelt', rq(`${method}s`), 'const', '/method')],
    );
  specs.push(
    request('resources/list', 'client-to-server', 'ListResourcesRequest', 'ListResourcesResult', 'Lists the resources the server offers, one page at a time.', paginated, false, page('resources', 'Resource'), {
      request: listRequestExamples('resources/list'),
      result: ex(
        [
          valid('one resource and a next page', ok({ resources: [readme], nextCursor: 'eyJwYWdlIjoyfQ==' }, 2)),
          valid('empty list', ok({ resources: [] }, 3)),
        ],
        [
          invalid('resource without a name', ok({ resources: [{ uri: 'file:///a.txt' }] }), 'required', '/result/resources/0'),
          invalid('priority above 1', ok({ resources: [{ ...readme, annotations: { priority: 2 } }] }), 'maximum', '/result/resources/0/annotations/priority'),
          invalid('resources member missing', ok({ nextCursor: 'x' }), 'required', '/result'),
        ],
      ),
    }),
    request(
      'resources/templates/list',
      'client-to-server',
      'ListResourceTemplatesRequest',
      'ListResourceTemplatesResult',
      'Lists parameterised resources (RFC 6570 URI templates).',
      paginated,
      false,
      page('resourceTemplates', 'ResourceTemplate'),
      {
        request: listRequestExamples('resources/templates/list'),
        result: ex(
          [valid('a log-file template', ok({ resourceTemplates: [{ uriTemplate: 'file:///logs/{date}.log', name: 'daily-log', ...(v0618 ? { title: 'Daily log', _meta: { 'example.com/rotation': 'daily' } } : {}), description: 'One log file per day', mimeType: 'text/plain', annotations: { audience: ['assistant'], priority: 0.3 }, ...(v1125 ? { icons: [icon] } : {}) }] }, 2))],
          [
            invalid('template without uriTemplate', ok({ resourceTemplates: [{ name: 'Daily log' }] }), 'required', '/result/resourceTemplates/0'),
            invalid('resourceTemplates is an object', ok({ resourceTemplates: {} }), 'type', '/result/resourceTemplates'),
          ],
        ),
      },
    ),
    request(
      'resources/read',
      'client-to-server',
      'ReadResourceRequest',
      'ReadResourceResult',
      'Reads the contents of one resource.',
      rp({ uri: uri() }, ['uri']),
      true,
      res({ contents: arr(anyOf(m('TextResourceContents'), m('BlobResourceContents'))) }, ['contents']),
      {
        request: ex(
          [valid('read a file', rq('resources/read', { uri: 'file:///project/README.md' }, 4))],
          [
            invalid('uri is missing', rq('resources/read', {}), 'required', '/params'),
            invalid('uri is not a URI', rq('resources/read', { uri: 'not a uri' }), 'format', '/params/uri'),
          ],
        ),
        result: ex(
          [
            valid('text contents', ok({ contents: [{ uri: 'file:///project/README.md', mimeType: 'text/markdown', text: '# Project\n' }] }, 4)),
            valid('binary contents', ok({ contents: [{ uri: 'file:///project/logo.png', mimeType: 'image/png', blob: png.data }] }, 5)),
          ],
          [
            invalid('contents item with neither text nor blob', ok({ contents: [{ uri: 'file:///a.txt' }] }), 'anyOf', '/result/contents/0'),
            invalid('blob is not base64', ok({ contents: [{ uri: 'file:///a.bin', blob: '***' }] }), 'anyOf', '/result/contents/0'),
          ],
        ),
      },
    ),
  );
  const subscription = (method: string, official: string, what: string): RequestSpec =>
    request(method, 'client-to-server', official, 'EmptyResult', what, rp({ uri: uri() }, ['uri']), true, res({}), {
      request: ex(
        [valid('a file resource', rq(method, { uri: 'file:///project/config.json' }, 6))],
        [invalid('params are missing', rq(method), 'required', ''), invalid('uri is a number', rq(method, { uri: 1 }), 'type', '/params/uri')],
      ),
      result: ex([valid('empty result', ok({}, 6))], [invalid('result is a string', ok('subscribed', 6), 'type', '/result')]),
    });
  specs.push(
    subscription('resources/subscribe', 'SubscribeRequest', 'Asks for notifications/resources/updated when the resource changes.'),
    subscription('resources/unsubscribe', 'UnsubscribeRequest', 'Cancels an earlier resources/subscribe.'),
    notification(
      'notifications/resources/updated',
      'server-to-client',
      'ResourceUpdatedNotification',
      'A subscribed resource changed.',
      np({ uri: uri() }, ['uri']),
      true,
      ex(
        [valid('a changed file', nt('notifications/resources/updated', { uri: 'file:///project/config.json' }))],
        [invalid('uri is missing', nt('notifications/resources/updated', {}), 'required', '/params'), invalid('params are missing', nt('notifications/resources/updated'), 'required', '')],
      ),
    ),
  );
  const listChanged = (method: string, official: string, direction: Direction, what: string): NotificationSpec =>
    notification(
      method,
      direction,
      official,
      what,
      np({}),
      false,
      ex(
        [valid('without params', nt(method)), valid('with _meta', nt(method, { _meta: { 'example.com/reason': 'reload' } }))],
        [invalid('_meta is a string', nt(method, { _meta: 'x' }), 'type', '/params/_meta'), invalid('jsonrpc is 1.0', j({ jsonrpc: '1.0', method }), 'const', '/jsonrpc')],
      ),
    );
  specs.push(
    listChanged('notifications/resources/list_changed', 'ResourceListChangedNotification', 'server-to-client', 'The list of resources changed.'),
    listChanged('notifications/prompts/list_changed', 'PromptListChangedNotification', 'server-to-client', 'The list of prompts changed.'),
    listChanged('notifications/tools/list_changed', 'ToolListChangedNotification', 'server-to-client', 'The list of tools changed.'),
    listChanged('notifications/roots/list_changed', 'RootsListChangedNotification', 'client-to-server', 'The list of roots changed.'),
  );

  // --- prompts -------------------------------------------------------------------------------
  const reviewPrompt = {
    ...titled({ name: 'code_review' }, 'Request code review'),
    description: 'Asks the model to review code',
    arguments: [{ name: 'code', ...(v0618 ? { title: 'Code' } : {}), description: 'The code to review', required: true }],
    ...(v1125 ? { icons: [icon] } : {}),
  };
  specs.push(
    request('prompts/list', 'client-to-server', 'ListPromptsRequest', 'ListPromptsResult', 'Lists the prompt templates the server offers.', paginated, false, page('prompts', 'Prompt'), {
      request: listRequestExamples('prompts/list'),
      result: ex(
        [valid('one prompt', ok({ prompts: [reviewPrompt] }, 2))],
        [
          invalid('prompt without a name', ok({ prompts: [{ description: 'nameless' }] }), 'required', '/result/prompts/0'),
          invalid('argument.required is a string', ok({ prompts: [{ name: 'p', arguments: [{ name: 'a', required: 'yes' }] }] }), 'type', '/result/prompts/0/arguments/0/required'),
        ],
      ),
    }),
    request(
      'prompts/get',
      'client-to-server',
      'GetPromptRequest',
      'GetPromptResult',
      'Renders one prompt template with arguments.',
      rp({ name: str(), arguments: { type: 'object', additionalProperties: str() } }, ['name']),
      true,
      res({ description: str(), messages: arr(m('PromptMessage')) }, ['messages']),
      {
        request: ex(
          [valid('with arguments', rq('prompts/get', { name: 'code_review', arguments: { code: 'def f(): pass' } }, 8))],
          [
            invalid('argument value is a number', rq('prompts/get', { name: 'code_review', arguments: { code: 42 } }), 'type', '/params/arguments/code'),
            invalid('name is missing', rq('prompts/get', { arguments: {} }), 'required', '/params'),
          ],
        ),
        result: ex(
          [
            valid(
              'a user message with text and an embedded resource',
              ok(
                {
                  description: 'Code review prompt',
                  messages: [
                    { role: 'user', content: text('Please review this code:') },
                    { role: 'user', content: { type: 'resource', resource: { uri: 'file:///project/main.py', mimeType: 'text/x-python', text: 'def f(): pass' } } },
                  ],
                },
                8,
              ),
            ),
            ...(v0326 ? [valid('an audio message (2025-03-26 and later)', ok({ messages: [{ role: 'user', content: wav }] }, 9))] : []),
          ],
          [
            invalid('role is "system"', ok({ messages: [{ role: 'system', content: text('hi') }] }), 'enum', '/result/messages/0/role'),
            invalid('content is a plain string', ok({ messages: [{ role: 'user', content: 'hi' }] }), 'anyOf', '/result/messages/0/content'),
            ...(v0326 ? [] : [invalid('audio content did not exist in 2024-11-05', ok({ messages: [{ role: 'user', content: wav }] }), 'anyOf', '/result/messages/0/content')]),
          ],
        ),
      },
    ),
  );

  // --- tools ---------------------------------------------------------------------------------
  specs.push(
    request('tools/list', 'client-to-server', 'ListToolsRequest', 'ListToolsResult', 'Lists the tools the server offers.', paginated, false, page('tools', 'Tool'), {
      request: listRequestExamples('tools/list'),
      result: ex(
        [valid('one tool', ok({ tools: [weatherTool], nextCursor: 'next-2' }, 2)), valid('no tools', ok({ tools: [] }, 3))],
        [
          invalid('tool without inputSchema', ok({ tools: [{ name: 'get_weather' }] }), 'required', '/result/tools/0'),
          invalid('inputSchema type is "array"', ok({ tools: [{ name: 'list', inputSchema: { type: 'array' } }] }), 'const', '/result/tools/0/inputSchema/type'),
          ...(v0326
            ? [invalid('readOnlyHint is a string', ok({ tools: [{ ...weatherTool, annotations: { readOnlyHint: 'true' } }] }), 'type', '/result/tools/0/annotations/readOnlyHint')]
            : []),
        ],
      ),
    }),
    request(
      'tools/call',
      'client-to-server',
      'CallToolRequest',
      'CallToolResult',
      'Invokes a tool. Tool failures come back as a result with isError: true; protocol errors as a JSON-RPC error.' +
        (v1125 ? ' With params.task the server may answer with a CreateTaskResult instead (see defs CreateTaskResult).' : ''),
      rp({ name: str(), arguments: anyObj(), task: cond(v1125, m('TaskMetadata')) }, ['name']),
      true,
      res({ content: arr(m('ContentBlock')), structuredContent: cond(v0618, anyObj('Structured output conforming to the tool\'s outputSchema.')), isError: bool() }, ['content']),
      {
        request: ex(
          [
            valid('call with arguments and a progress token', rq('tools/call', { name: 'get_weather', arguments: { city: 'Berlin' }, _meta: { progressToken: 'w-1' } }, 10)),
            valid('call without arguments', rq('tools/call', { name: 'list_cities' }, 'call-2')),
            ...(v1125 ? [valid('task-augmented call', rq('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' }, task: { ttl: 60000 } }, 11))] : []),
          ],
          [
            invalid('name is missing', rq('tools/call', { arguments: { city: 'Berlin' } }), 'required', '/params'),
            invalid('arguments is an array', rq('tools/call', { name: 'get_weather', arguments: ['Berlin'] }), 'type', '/params/arguments'),
            ...(v1125 ? [invalid('task.ttl is a string', rq('tools/call', { name: 'get_weather', task: { ttl: '1m' } }), 'type', '/params/task/ttl')] : []),
          ],
        ),
        result: ex(
          [
            valid(
              'text result' + (v0618 ? ' with structuredContent' : ''),
              ok({ content: [text('Berlin: 21°C, sunny')], ...(v0618 ? { structuredContent: { temperatureC: 21 } } : {}), isError: false }, 10),
            ),
            valid('tool-level error reported in the result', ok({ content: [text('Unknown city: Atlantis')], isError: true }, 11)),
            ...(v0618 ? [valid('a resource link (2025-06-18 and later)', ok({ content: [{ type: 'resource_link', uri: 'file:///reports/berlin.pdf', name: 'berlin.pdf', mimeType: 'application/pdf' }] }, 12))] : []),
          ],
          [
            invalid('content is missing', ok({ isError: false }), 'required', '/result'),
            invalid('unknown content type "video"', ok({ content: [{ type: 'video', data: 'AAAA', mimeType: 'video/mp4' }] }), 'anyOf', '/result/content/0'),
            ...(v0326 ? [] : [invalid('audio content did not exist in 2024-11-05', ok({ content: [wav] }), 'anyOf', '/result/content/0')]),
            ...(v0618
              ? [invalid('structuredContent is an array', ok({ content: [], structuredContent: [1, 2] }), 'type', '/result/structuredContent')]
              : [invalid('resource_link content did not exist before 2025-06-18', ok({ content: [{ type: 'resource_link', uri: 'file:///a.pdf', name: 'a.pdf' }] }), 'anyOf', '/result/content/0')]),
          ],
        ),
      },
    ),
  );

  // --- logging and completion ---------------------------------------------------------------
  specs.push(
    request('logging/setLevel', 'client-to-server', 'SetLevelRequest', 'EmptyResult', 'Sets the minimum level of notifications/message the server sends.', rp({ level: m('LoggingLevel') }, ['level']), true, res({}), {
      request: ex(
        [valid('set to warning', rq('logging/setLevel', { level: 'warning' }, 13))],
        [invalid('level "verbose" is not a syslog level', rq('logging/setLevel', { level: 'verbose' }), 'enum', '/params/level'), invalid('level is missing', rq('logging/setLevel', {}), 'required', '/params')],
      ),
      result: ex([valid('empty result', ok({}, 13))], [invalid('result is an array', ok([], 13), 'type', '/result')]),
    }),
    notification(
      'notifications/message',
      'server-to-client',
      'LoggingMessageNotification',
      'A log message from the server.',
      np({ level: m('LoggingLevel'), logger: str(), data: { description: 'Any JSON value: a string or an object.' } }, ['level', 'data']),
      true,
      ex(
        [
          valid('structured data', nt('notifications/message', { level: 'error', logger: 'database', data: { error: 'Connection failed', host: 'db.internal' } })),
          valid('string data', nt('notifications/message', { level: 'info', data: 'Server started' })),
        ],
        [
          invalid('data is missing', nt('notifications/message', { level: 'info' }), 'required', '/params'),
          invalid('level is WARN', nt('notifications/message', { level: 'WARN', data: 'x' }), 'enum', '/params/level'),
        ],
      ),
    ),
    request(
      'completion/complete',
      'client-to-server',
      'CompleteRequest',
      'CompleteResult',
      'Asks for completion values of a prompt or resource-template argument.',
      rp(
        {
          ref: anyOf(m('PromptReference'), m('ResourceTemplateReference')),
          argument: obj({ name: str(), value: str() }, ['name', 'value']),
          context: cond(v0618, obj({ arguments: { type: 'object', additionalProperties: str() } })),
        },
        ['ref', 'argument'],
      ),
      true,
      res({ completion: obj({ values: arr(str(), 'At most 100 values.'), total: int(), hasMore: bool() }, ['values']) }, ['completion']),
      {
        request: ex(
          [
            valid('prompt argument', rq('completion/complete', { ref: { type: 'ref/prompt', name: 'code_review' }, argument: { name: 'language', value: 'py' } }, 14)),
            valid(
              'resource template argument',
              rq('completion/complete', { ref: { type: 'ref/resource', uri: 'file:///logs/{date}.log' }, argument: { name: 'date', value: '2025-' }, ...(v0618 ? { context: { arguments: { host: 'a' } } } : {}) }, 15),
            ),
          ],
          [
            invalid('ref type "ref/tool" is unknown', rq('completion/complete', { ref: { type: 'ref/tool', name: 'x' }, argument: { name: 'a', value: '' } }), 'anyOf', '/params/ref'),
            invalid('argument.value is missing', rq('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a' } }), 'required', '/params/argument'),
          ],
        ),
        result: ex(
          [valid('three values, more available', ok({ completion: { values: ['python', 'pytorch', 'pyside'], total: 10, hasMore: true } }, 14))],
          [
            invalid('values is missing', ok({ completion: { total: 0 } }), 'required', '/result/completion'),
            invalid('total is fractional', ok({ completion: { values: [], total: 1.5 } }), 'type', '/result/completion/total'),
          ],
        ),
      },
    ),
  );

  // --- client features (server-to-client) ----------------------------------------------------
  const samplingParams: Props = {
    messages: arr(m('SamplingMessage')),
    modelPreferences: m('ModelPreferences'),
    systemPrompt: str(),
    includeContext: enumStr(['none', 'thisServer', 'allServers']),
    temperature: num(),
    maxTokens: int(),
    stopSequences: arr(str()),
    metadata: anyObj('Provider-specific metadata.'),
    tools: cond(v1125, arr(m('Tool'))),
    toolChoice: cond(v1125, m('ToolChoice')),
    task: cond(v1125, m('TaskMetadata')),
  };
  specs.push(
    request(
      'sampling/createMessage',
      'server-to-client',
      'CreateMessageRequest',
      'CreateMessageResult',
      'The server asks the client to sample an LLM; the client should let the user review both request and answer.',
      rp(samplingParams, ['messages', 'maxTokens']),
      true,
      res({ role: m('Role'), content: m('SamplingContent'), model: str('The model that produced the answer.'), stopReason: str('e.g. endTurn, stopSequence, maxTokens') }, ['role', 'content', 'model']),
      {
        request: ex(
          [
            valid(
              'a question with model preferences',
              rq(
                'sampling/createMessage',
                {
                  messages: [{ role: 'user', content: text('What is the capital of France?') }],
                  modelPreferences: { hints: [{ name: 'claude-3-sonnet' }], intelligencePriority: 0.8, speedPriority: 0.5 },
                  systemPrompt: 'You are a helpful assistant.',
                  includeContext: 'thisServer',
                  maxTokens: 100,
                },
                'srv-1',
              ),
            ),
            ...(v1125
              ? [
                  valid(
                    'with tools and a tool result (2025-11-25)',
                    rq(
                      'sampling/createMessage',
                      {
                        messages: [
                          { role: 'user', content: text('Weather in Paris?') },
                          { role: 'assistant', content: { type: 'tool_use', id: 'tu-1', name: 'get_weather', input: { city: 'Paris' } } },
                          { role: 'user', content: [{ type: 'tool_result', toolUseId: 'tu-1', content: [text('18°C')], structuredContent: { temperatureC: 18 }, isError: false }] },
                        ],
                        tools: [weatherTool],
                        toolChoice: { mode: 'auto' },
                        maxTokens: 200,
                      },
                      'srv-2',
                    ),
                  ),
                ]
              : []),
          ],
          [
            invalid('maxTokens is missing', rq('sampling/createMessage', { messages: [] }), 'required', '/params'),
            invalid('includeContext "everything"', rq('sampling/createMessage', { messages: [], maxTokens: 10, includeContext: 'everything' }), 'enum', '/params/includeContext'),
            invalid('costPriority above 1', rq('sampling/createMessage', { messages: [], maxTokens: 10, modelPreferences: { costPriority: 1.5 } }), 'maximum', '/params/modelPreferences/costPriority'),
          ],
        ),
        result: ex(
          [
            valid('text answer', ok({ role: 'assistant', content: text('The capital of France is Paris.'), model: 'claude-3-sonnet-20240307', stopReason: 'endTurn' }, 'srv-1')),
            ...(v0326 ? [valid('audio answer (2025-03-26 and later)', ok({ role: 'assistant', content: wav, model: 'voice-1' }, 'srv-3'))] : []),
            ...(v1125 ? [valid('tool use answer (2025-11-25)', ok({ role: 'assistant', content: [{ type: 'tool_use', id: 'tu-2', name: 'get_weather', input: { city: 'Rome' } }], model: 'm', stopReason: 'toolUse' }, 'srv-2'))] : []),
          ],
          [
            invalid('model is missing', ok({ role: 'assistant', content: text('hi') }), 'required', '/result'),
            invalid('content is a resource link', ok({ role: 'assistant', content: { type: 'resource_link', uri: 'file:///a', name: 'a' }, model: 'm' }), 'anyOf', '/result/content'),
            ...(v0326 ? [] : [invalid('audio content did not exist in 2024-11-05', ok({ role: 'assistant', content: wav, model: 'm' }), 'anyOf', '/result/content')]),
          ],
        ),
      },
    ),
    request('roots/list', 'server-to-client', 'ListRootsRequest', 'ListRootsResult', 'The server asks for the filesystem roots it may work in.', rp({}), false, res({ roots: arr(m('Root')) }, ['roots']), {
      request: ex([valid('plain request', rq('roots/list', undefined, 'srv-4'))], [invalid('params is a string', rq('roots/list', 'all'), 'type', '/params'), invalid('method is "roots/get"', rq('roots/get'), 'const', '/method')]),
      result: ex(
        [valid('two roots', ok({ roots: [{ uri: 'file:///home/user/project', name: 'Project' }, { uri: 'file:///home/user/notes' }] }, 'srv-4'))],
        [invalid('root without uri', ok({ roots: [{ name: 'Project' }] }), 'required', '/result/roots/0'), invalid('roots missing', ok({}), 'required', '/result')],
      ),
    }),
  );

  if (v0618) {
    const form = {
      message: 'Please provide your GitHub username',
      requestedSchema: {
        ...(v1125 ? { $schema: 'https://json-schema.org/draft/2020-12/schema' } : {}),
        type: 'object',
        properties: {
          name: { type: 'string', title: 'Username', description: 'Your GitHub login', minLength: 1, maxLength: 39, ...(v1125 ? { default: 'octocat' } : {}) },
          email: { type: 'string', format: 'email' },
          age: { type: 'integer', minimum: 13, maximum: 120, ...(v1125 ? { default: 30 } : {}) },
          subscribe: { type: 'boolean', title: 'Newsletter', default: false },
          plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'] },
          ...(v1125
            ? {
                region: { type: 'string', title: 'Region', oneOf: [{ const: 'eu', title: 'Europe' }, { const: 'us', title: 'United States' }], default: 'eu' },
                topics: { type: 'array', title: 'Topics', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['mcp', 'rust', 'go'] }, default: ['mcp'] },
                editors: { type: 'array', items: { anyOf: [{ const: 'vim', title: 'Vim' }, { const: 'code', title: 'VS Code' }] } },
                color: { type: 'string', enum: ['red', 'green'] },
              }
            : {}),
        },
        required: ['name'],
      },
    };
    const params = v1125 ? anyOf(m('ElicitRequestURLParams'), m('ElicitRequestFormParams')) : rp({ message: str(), requestedSchema: m('ElicitationRequestedSchema') }, ['message', 'requestedSchema']);
    specs.push(
      request(
        'elicitation/create',
        'server-to-client',
        'ElicitRequest',
        'ElicitResult',
        v1125
          ? 'The server asks the user for input: a form described by a flat JSON Schema, or (mode "url") a URL the user visits out of band.'
          : 'The server asks the user for input described by a flat JSON Schema.',
        params,
        true,
        res(
          {
            action: enumStr(['accept', 'decline', 'cancel']),
            content: { type: 'object', additionalProperties: v1125 ? anyOf({ type: 'string' }, { type: 'integer' }, { type: 'boolean' }, arr(str())) : anyOf({ type: 'string' }, { type: 'integer' }, { type: 'boolean' }) },
          },
          ['action'],
        ),
        {
          request: ex(
            [
              valid('a form', rq('elicitation/create', v1125 ? { mode: 'form', ...form } : form, 'srv-5')),
              ...(v1125 ? [valid('a URL elicitation', rq('elicitation/create', { mode: 'url', message: 'Sign in to continue', elicitationId: 'el-42', url: 'https://auth.example.com/authorize?state=el-42' }, 'srv-6'))] : []),
            ],
            [
              invalid('requestedSchema type is "array"', rq('elicitation/create', { message: 'x', requestedSchema: { type: 'array', properties: {} } }), v1125 ? 'anyOf' : 'const', v1125 ? '/params' : '/params/requestedSchema/type'),
              invalid('a property schema of type "object" (not primitive)', rq('elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: { nested: { type: 'object' } } } }), 'anyOf'),
              ...(v1125 ? [invalid('url mode without elicitationId', rq('elicitation/create', { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/' }), 'anyOf', '/params')] : []),
            ],
          ),
          result: ex(
            [
              valid('accepted with content', ok({ action: 'accept', content: { name: 'octocat', age: 30, subscribe: true, ...(v1125 ? { topics: ['mcp', 'rust'] } : {}) } }, 'srv-5')),
              valid('declined', ok({ action: 'decline' }, 'srv-6')),
            ],
            [
              invalid('action "ok" is unknown', ok({ action: 'ok' }), 'enum', '/result/action'),
              invalid('content value is an object', ok({ action: 'accept', content: { address: { city: 'Berlin' } } }), 'anyOf', '/result/content/address'),
              ...(v1125 ? [] : [invalid('array values only arrived in 2025-11-25', ok({ action: 'accept', content: { topics: ['mcp'] } }), 'anyOf', '/result/content/topics')]),
            ],
          ),
        },
      ),
    );
  }

  if (v1125) {
    const taskId = obj({ taskId: str() }, ['taskId']);
    const taskResult = { ...res({}), allOf: [m('Task')] };
    const taskIdRequests = (method: string): Examples =>
      ex(
        [valid('by task id', rq(method, { taskId: 'task-7f3a' }, 20))],
        [invalid('taskId is missing', rq(method, {}), 'required', '/params'), invalid('taskId is a number', rq(method, { taskId: 7 }), 'type', '/params/taskId')],
      );
    specs.push(
      request('tasks/get', 'both', 'GetTaskRequest', 'GetTaskResult', 'Polls the status of a task.', taskId, true, taskResult, {
        request: taskIdRequests('tasks/get'),
        result: ex(
          [valid('a working task', ok(task, 20)), valid('a task without ttl', ok({ taskId: 't-1', status: 'completed', createdAt: '2025-11-25T10:00:00Z', lastUpdatedAt: '2025-11-25T10:01:00Z', ttl: null }, 21))],
          [
            invalid('status "running" is unknown', ok({ ...task, status: 'running' }), 'enum', '/result/status'),
            invalid('ttl is missing', ok({ taskId: 't-1', status: 'working', createdAt: 'a', lastUpdatedAt: 'b' }), 'required', '/result'),
          ],
        ),
      }),
      request('tasks/result', 'both', 'GetTaskPayloadRequest', 'GetTaskPayloadResult', 'Fetches the result of a finished task: the result the original request would have had.', taskId, true, res({}), {
        request: taskIdRequests('tasks/result'),
        result: ex(
          [valid('the payload of a tools/call task', ok({ content: [text('Oslo: 4°C')], isError: false, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 'task-7f3a' } } }, 20))],
          [invalid('result is a string', ok('done', 20), 'type', '/result'), invalid('_meta is an array', ok({ _meta: [] }, 20), 'type', '/result/_meta')],
        ),
      }),
      request('tasks/cancel', 'both', 'CancelTaskRequest', 'CancelTaskResult', 'Cancels a task; the answer is the task in its final state.', taskId, true, taskResult, {
        request: taskIdRequests('tasks/cancel'),
        result: ex([valid('a cancelled task', ok({ ...task, status: 'cancelled', statusMessage: 'Cancelled by user' }, 20))], [invalid('taskId is missing', ok({ status: 'cancelled', createdAt: 'a', lastUpdatedAt: 'b', ttl: null }), 'required', '/result')]),
      }),
      request('tasks/list', 'both', 'ListTasksRequest', 'ListTasksResult', 'Lists the tasks the receiver knows about for this requestor.', paginated, false, page('tasks', 'Task'), {
        request: listRequestExamples('tasks/list'),
        result: ex(
          [valid('one task', ok({ tasks: [task], nextCursor: 'c2' }, 2))],
          [invalid('tasks is missing', ok({}), 'required', '/result'), invalid('ttl is a string', ok({ tasks: [{ ...task, ttl: '60s' }] }), 'anyOf', '/result/tasks/0/ttl')],
        ),
      }),
      notification('notifications/tasks/status', 'both', 'TaskStatusNotification', 'The receiver of a task-augmented request reports a status change.', { ...np({}), allOf: [m('Task')] }, true, ex(
        [valid('task needs input', nt('notifications/tasks/status', { ...task, status: 'input_required', statusMessage: 'Waiting for elicitation' }))],
        [invalid('params are missing', nt('notifications/tasks/status'), 'required', ''), invalid('status is missing', nt('notifications/tasks/status', { taskId: 't', createdAt: 'a', lastUpdatedAt: 'b', ttl: null }), 'required', '/params')],
      )),
      notification(
        'notifications/elicitation/complete',
        'server-to-client',
        'ElicitationCompleteNotification',
        'The out-of-band interaction of a URL elicitation finished.',
        obj({ elicitationId: str() }, ['elicitationId']),
        true,
        ex(
          [valid('completed elicitation', nt('notifications/elicitation/complete', { elicitationId: 'el-42' }))],
          [invalid('elicitationId is missing', nt('notifications/elicitation/complete', {}), 'required', '/params'), invalid('params are missing', nt('notifications/elicitation/complete'), 'required', '')],
        ),
      ),
    );
  }
  if (v1125) {
    const created = (id: string | number, status = 'working'): Json => ok({ task: { ...task, status } }, id);
    for (const spec of specs) {
      if (spec.kind !== 'request' || !['tools/call', 'sampling/createMessage', 'elicitation/create'].includes(spec.method)) continue;
      spec.taskResultExamples = ex(
        [valid('a working task', created(11)), valid('a task that already needs input', created('srv-7', 'input_required'))],
        [
          invalid(`a plain ${spec.method} result is not a task`, ok({ content: [text('done')], role: 'assistant', model: 'm', action: 'accept' }, 11), 'required', '/result'),
          invalid('the task has no createdAt', ok({ task: { taskId: 't', status: 'working', lastUpdatedAt: 'b', ttl: null } }), 'required', '/result/task'),
          invalid('task status "queued" is unknown', ok({ task: { ...task, status: 'queued' } }), 'enum', '/result/task/status'),
        ],
      );
    }
  }
  return specs;
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/** The schema slug of a method (docs/architecture.md): `/`, `.` and `$` become `-`, leading `-` are dropped. */
export function slugOf(method: string): string {
  return method.replace(/[/.$]/g, '-').replace(/^-+/, '');
}

const jsonrpc = (): Schema => constStr('2.0');

function header(v: ProtocolVersion, file: string, title: string, description: string, annotation: Schema): Schema {
  return {
    $schema: DRAFT,
    $id: `${ID_BASE}core/${v}/${file}`,
    title,
    description,
    'x-mcp-flow': { family: 'core', ...annotation, protocolVersion: v, requirements: requirementsOf(file, annotation) },
  };
}

/**
 * Requirement IDs (suites/requirements.json) a schema checks, by kind and method. Only the parts a
 * schema can decide are cited; behaviour (timing, ordering, capability gating) is left to the cases.
 */
const REQUIREMENTS_BY_KIND: Record<string, string[]> = {
  request: ['CORE-RPC-1', 'CORE-RPC-2', 'CORE-RPC-3'],
  notification: ['CORE-RPC-1'],
  result: ['CORE-RPC-1', 'CORE-RPC-3', 'CORE-RPC-14'],
  error: ['CORE-RPC-1', 'CORE-RPC-7'],
  definition: [],
};
const REQUIREMENTS_BY_MESSAGE: Record<string, string[]> = {
  'request initialize': ['CORE-LIFE-2', 'CORE-CAP-6'],
  'result initialize': ['CORE-LIFE-3', 'CORE-CAP-6'],
  'result ping': ['CORE-LIFE-12'],
  'request logging/setLevel': ['CORE-LOG-1'],
  'result logging/setLevel': ['CORE-LOG-1'],
  'notification notifications/message': ['CORE-LOG-4'],
  'notification notifications/progress': ['CORE-PROG-1', 'CORE-PROG-3'],
  'notification notifications/cancelled': ['CORE-RPC-3', 'CORE-CANCEL-1'],
  'result tools/list': ['CORE-TOOLS-1', 'CORE-PAGE-1'],
  'result tools/call': ['CORE-TOOLS-3'],
  'result resources/list': ['CORE-RES-1', 'CORE-PAGE-1'],
  'result resources/templates/list': ['CORE-RES-6', 'CORE-PAGE-1'],
  'result resources/read': ['CORE-RES-3'],
  'result resources/subscribe': ['CORE-RES-7'],
  'result resources/unsubscribe': ['CORE-RES-7'],
  'result prompts/list': ['CORE-PROMPTS-1', 'CORE-PAGE-1'],
  'result prompts/get': ['CORE-PROMPTS-2'],
  'result sampling/createMessage': ['CORE-SAMPLING-1'],
  'result roots/list': ['CORE-CAP-7'],
  'result elicitation/create': ['CORE-CAP-8'],
  'result tasks/list': ['CORE-PAGE-1'],
};

/** Requirements of error schemas without a method, by file. */
const REQUIREMENTS_BY_ERROR_FILE: Record<string, string[]> = {
  'jsonrpc-error.error.schema.json': ['CORE-RPC-3'],
  'jsonrpc-error-null-id.error.schema.json': ['CORE-RPC-8', 'CORE-RPC-9'],
};

function requirementsOf(file: string, annotation: Schema): string[] {
  const kind = String(annotation.kind);
  const own = REQUIREMENTS_BY_MESSAGE[`${kind} ${String(annotation.method)}`] ?? REQUIREMENTS_BY_ERROR_FILE[file] ?? [];
  return [...new Set([...(REQUIREMENTS_BY_KIND[kind] ?? []), ...own])];
}

function messageFiles(v: ProtocolVersion, spec: MessageSpec): Array<[string, Json]> {
  const slug = slugOf(spec.method);
  const out: Array<[string, Json]> = [];
  const add = (kind: Kind, official: string, body: Schema, title: string, description: string, examples: Examples): void => {
    const file = `${slug}.${kind}.schema.json`;
    const annotation: Schema = { kind, method: spec.method, direction: directionOf(spec, kind), official };
    out.push([file, { ...header(v, file, title, description, annotation), ...body }]);
    out.push([`${slug}.${kind}.examples.json`, j(examples)]);
  };
  if (spec.kind === 'request') {
    add(
      'request',
      spec.official,
      obj({ jsonrpc: jsonrpc(), id: m('RequestId'), method: constStr(spec.method), params: spec.params }, ['jsonrpc', 'id', 'method', ...(spec.paramsRequired ? ['params'] : [])]),
      `MCP ${v} ${spec.method} request`,
      spec.description,
      spec.examples.request,
    );
    add(
      'result',
      spec.resultOfficial,
      obj({ jsonrpc: jsonrpc(), id: m('RequestId'), result: spec.result }, ['jsonrpc', 'id', 'result']),
      `MCP ${v} ${spec.method} result`,
      `The success response to ${spec.method}.`,
      spec.examples.result,
    );
    if (spec.taskResultExamples) {
      const file = `${slug}-task.result.schema.json`;
      const annotation: Schema = { kind: 'result', method: spec.method, direction: directionOf(spec, 'result'), official: 'CreateTaskResult' };
      const body = obj({ jsonrpc: jsonrpc(), id: m('RequestId'), result: m('CreateTaskResult') }, ['jsonrpc', 'id', 'result']);
      const description = `The answer to a task-augmented ${spec.method} (params.task present): the task that was created; its payload comes later from tasks/result.`;
      out.push([file, { ...header(v, file, `MCP ${v} ${spec.method} result (task created)`, description, annotation), ...body }]);
      out.push([`${slug}-task.result.examples.json`, j(spec.taskResultExamples)]);
    }
  } else {
    add(
      'notification',
      spec.official,
      obj({ jsonrpc: jsonrpc(), method: constStr(spec.method), params: spec.params }, ['jsonrpc', 'method', ...(spec.paramsRequired ? ['params'] : [])]),
      `MCP ${v} ${spec.method} notification`,
      spec.description,
      spec.examples,
    );
  }
  return out;
}

/** A response travels the opposite way of its request. */
function directionOf(spec: MessageSpec, kind: Kind): Direction {
  if (kind !== 'result' || spec.direction === 'both') return spec.direction;
  return spec.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
}

function errorFiles(v: ProtocolVersion): Array<[string, Json]> {
  const v1125 = since(v, '2025-11-25');
  const out: Array<[string, Json]> = [];
  const envelope = (error: Schema): Schema => obj({ jsonrpc: jsonrpc(), id: m('RequestId'), error }, v1125 ? ['jsonrpc', 'error'] : ['jsonrpc', 'id', 'error']);
  const err = (code: number, message: string, data?: unknown, id: string | number = 1): Json =>
    j({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
  const generic = 'jsonrpc-error.error.schema.json';
  out.push([
    generic,
    {
      ...header(
        v,
        generic,
        `MCP ${v} JSON-RPC error response`,
        'The error response to any request.' +
          (v1125 ? ' Since 2025-11-25 the id may be omitted (for errors that cannot be tied to a request).' : ' The id is required and must be a string or an integer (MCP never uses a null id).'),
        { kind: 'error', direction: 'both', official: v1125 ? 'JSONRPCErrorResponse' : 'JSONRPCError' },
      ),
      ...envelope(m('ErrorObject')),
    },
  ]);
  out.push([
    'jsonrpc-error.error.examples.json',
    j(
      ex(
        [
          valid('method not found', err(-32601, 'Method not found', undefined, 5)),
          valid('invalid params with data', err(-32602, 'Unknown tool: invalid_tool_name', { tool: 'invalid_tool_name' }, 'call-3')),
          valid('resource not found (MCP uses -32002)', err(-32002, 'Resource not found', { uri: 'file:///nonexistent.txt' })),
        ],
        [
          invalid('error.code is a string', err('-32601' as unknown as number, 'Method not found'), 'type', '/error/code'),
          invalid('error.message is missing', j({ jsonrpc: '2.0', id: 1, error: { code: -32603 } }), 'required', '/error'),
          invalid('code is fractional', err(-32600.5, 'Invalid Request'), 'type', '/error/code'),
          ...(v1125 ? [] : [invalid('id is missing (required before 2025-11-25)', j({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }), 'required', '')]),
        ],
      ),
    ),
  ]);
  // JSON-RPC 2.0 §5: when the id of the request could not be read (parse error, invalid request),
  // the error response carries id null. The official MCP schemas have no definition for it (their
  // RequestId excludes null), so this schema has no `official` name and no cross-check.
  const nullId = 'jsonrpc-error-null-id.error.schema.json';
  out.push([
    nullId,
    {
      ...header(
        v,
        nullId,
        `MCP ${v} JSON-RPC error response with id null`,
        "The error response to a message whose id could not be determined (e.g. -32700 Parse error, -32600 Invalid Request): JSON-RPC 2.0 requires id null there. A request whose id JSON-RPC allows but MCP does not (a number with a fractional part: JSON-RPC 2.0 §4, 'Numbers SHOULD NOT contain fractional parts') may instead have that id echoed in its Invalid Request error. Not part of the official MCP schema, whose RequestId excludes null.",
        { kind: 'error', direction: 'both' },
      ),
      ...obj({ jsonrpc: jsonrpc(), id: anyOf({ type: 'null' }, { type: 'number', not: { type: 'integer' } }), error: m('ErrorObject') }, ['jsonrpc', 'id', 'error']),
    },
  ]);
  out.push([
    'jsonrpc-error-null-id.error.examples.json',
    j(
      ex(
        [
          valid('parse error', j({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })),
          valid('invalid request with data', j({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request', data: { reason: 'method must be a string' } } })),
          valid('invalid request echoing a fractional id, which JSON-RPC allows and MCP does not', j({ jsonrpc: '2.0', id: 0.1, error: { code: -32600, message: 'Invalid Request: id must be a string or an integer' } })),
        ],
        [
          invalid('id is an integer (a readable id is echoed by the error response carrying it)', err(-32700, 'Parse error', undefined, 3), 'anyOf', '/id'),
          invalid('id is missing', j({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }), 'required', ''),
          invalid('error.code is missing', j({ jsonrpc: '2.0', id: null, error: { message: 'Parse error' } }), 'required', '/error'),
        ],
      ),
    ),
  ]);
  if (v1125) {
    const file = 'url-elicitation-required.error.schema.json';
    out.push([
      file,
      {
        ...header(
          v,
          file,
          `MCP ${v} URL elicitation required error`,
          'Error -32042: the request needs the user to complete one or more URL elicitations first.',
          { kind: 'error', direction: 'server-to-client', official: 'URLElicitationRequiredError' },
        ),
        ...envelope({
          allOf: [
            m('ErrorObject'),
            obj({ code: { type: 'integer', const: -32042 }, data: obj({ elicitations: arr(m('ElicitRequestURLParams')) }, ['elicitations']) }, ['code', 'data']),
          ],
        }),
      },
    ]);
    const elicitation = { mode: 'url', message: 'Authorize access to your calendar', elicitationId: 'el-7', url: 'https://auth.example.com/connect?el=el-7' };
    out.push([
      'url-elicitation-required.error.examples.json',
      j(
        ex(
          [valid('one pending URL elicitation', err(-32042, 'This request requires more information.', { elicitations: [elicitation] }, 10))],
          [
            invalid('another code', err(-32603, 'Internal error', { elicitations: [elicitation] }), 'const', '/error/code'),
            invalid('data.elicitations is missing', err(-32042, 'Needs input', {}), 'required', '/error/data'),
            invalid('an elicitation in form mode', err(-32042, 'Needs input', { elicitations: [{ mode: 'form', message: 'x', elicitationId: 'e', url: 'https://a.example' }] }), 'const', '/error/data/elicitations/0/mode'),
          ],
        ),
      ),
    ]);
  }
  return out;
}

function defsFile(v: ProtocolVersion): [string, Json] {
  return [
    DEFS_FILE,
    {
      ...header(v, DEFS_FILE, `MCP ${v} shared definitions`, `Types shared by the MCP ${v} message schemas (content blocks, Tool, Resource, Prompt, capabilities...).`, {
        kind: 'definition',
      }),
      $defs: definitions(v) as Json,
    },
  ];
}

/** Every generated file, keyed by its path below schemas/core/. */
export function buildCoreSchemaFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const v of CORE_PROTOCOL_VERSIONS) {
    const entries: Array<[string, Json]> = [defsFile(v), ...errorFiles(v)];
    for (const spec of messages(v)) entries.push(...messageFiles(v, spec));
    for (const [name, content] of entries) {
      const path = `${v}/${name}`;
      if (files.has(path)) throw new Error(`generator bug: ${path} generated twice`);
      files.set(path, `${JSON.stringify(content, null, 2)}\n`);
    }
  }
  return files;
}

/** schemas/core of this checkout. */
export const CORE_SCHEMAS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'schemas', 'core');

/** Paths (below schemas/core) whose committed content differs from the generator's output, incl. stale extra files. */
export function staleCoreSchemaFiles(dir: string = CORE_SCHEMAS_DIR): string[] {
  const expected = buildCoreSchemaFiles();
  const stale: string[] = [];
  for (const [path, content] of expected) {
    const full = join(dir, path);
    if (!existsSync(full) || readFileSync(full, 'utf8') !== content) stale.push(path);
  }
  if (existsSync(dir)) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const v = entry.name;
      // Only version folders are generated: anything else directly in schemas/core is extra.
      if (!entry.isDirectory()) {
        stale.push(v);
        continue;
      }
      for (const name of readdirSync(join(dir, v))) if (!expected.has(`${v}/${name}`)) stale.push(`${v}/${name}`);
    }
  }
  return stale.sort();
}

function writeAll(dir: string): number {
  const files = buildCoreSchemaFiles();
  for (const v of CORE_PROTOCOL_VERSIONS) rmSync(join(dir, v), { recursive: true, force: true });
  for (const [path, content] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return files.size;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  if (process.argv.includes('--check')) {
    const stale = staleCoreSchemaFiles();
    if (stale.length > 0) {
      process.stderr.write(`schemas/core is out of date (run npx tsx scripts/generate-core-schemas.ts):\n  ${stale.join('\n  ')}\n`);
      process.exit(1);
    }
    process.stdout.write('schemas/core is up to date\n');
  } else {
    process.stdout.write(`wrote ${writeAll(CORE_SCHEMAS_DIR)} files to ${CORE_SCHEMAS_DIR}\n`);
  }
}
