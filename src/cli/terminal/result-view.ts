// How a final result is printed: text content as text, every other content item summarised on one
// line (type, media type, size), structured content as JSON (pure functions).
import { formatBytes } from './progress-bar.js';
import { showValue } from './prompt-view.js';

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function base64Bytes(data: unknown): number | undefined {
  if (typeof data !== 'string') return undefined;
  const clean = data.replace(/\s+/g, '').replace(/=+$/, '');
  return Math.floor((clean.length * 3) / 4);
}

function describe(parts: (string | undefined)[]): string {
  return parts.filter((part) => part !== undefined && part !== '').join(', ');
}

/** One content item (MCP tools/call content, or the binding's ref/stream) as lines. */
export function renderContentItem(item: unknown): string[] {
  const content = record(item);
  const type = typeof content['type'] === 'string' ? content['type'] : undefined;
  const mimeType = typeof content['mimeType'] === 'string' ? content['mimeType'] : undefined;
  switch (type) {
    case 'text':
      return showValue(content['text']).split('\n');
    case 'image':
    case 'audio': {
      const bytes = base64Bytes(content['data']);
      return [`[${type}: ${describe([mimeType, bytes === undefined ? undefined : formatBytes(bytes)])}]`];
    }
    case 'resource': {
      const resource = record(content['resource']);
      const uri = showValue(resource['uri']);
      const type = typeof resource['mimeType'] === 'string' ? resource['mimeType'] : undefined;
      if (typeof resource['text'] === 'string') return [`[resource ${uri}: ${describe([type, `${[...resource['text']].length} characters`])}]`];
      const bytes = base64Bytes(resource['blob']);
      return [`[resource ${uri}: ${describe([type, bytes === undefined ? undefined : formatBytes(bytes)])}]`];
    }
    case 'resource_link':
      return [`[resource link ${showValue(content['uri'])}${mimeType ? `: ${mimeType}` : ''}]`];
    case 'ref/stream':
      return [`[execution stream ${showValue(content['streamTag'])}${mimeType ? `: ${mimeType}` : ''}]`];
    default:
      return [`[${type ?? 'content without a type'}: ${showValue(item)}]`];
  }
}

/** A tools/call result (CallToolResult) as lines. */
export function renderToolResult(result: unknown): string[] {
  const body = record(result);
  const lines: string[] = [];
  if (body['isError'] === true) lines.push('tool reported an error (isError: true):');
  const content = Array.isArray(body['content']) ? body['content'] : [];
  for (const item of content) lines.push(...renderContentItem(item));
  if (body['structuredContent'] !== undefined) lines.push(`structured content: ${showValue(body['structuredContent'])}`);
  if (content.length === 0 && body['structuredContent'] === undefined) lines.push('(no content)');
  return lines;
}

/** A JSON value indented for reading, as lines. */
export function renderJson(value: unknown): string[] {
  try {
    return (JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item), 2) ?? 'undefined').split('\n');
  } catch {
    return [String(value)];
  }
}
