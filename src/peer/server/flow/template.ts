// Result templates of wizard files: "{{data.key}}" alone in a string is replaced by the value
// (any JSON type), inside longer text by its text. Roots: data (accumulatedData), params
// (initialParams), row (export rows only).

const PLACEHOLDER = /\{\{\s*([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}$/;

export type TemplateScope = Record<string, unknown>;

/** Every placeholder path used in a template value, with the JSON Pointer of the string holding it. */
export function templatePaths(template: unknown, pointer = ''): { path: string; pointer: string }[] {
  if (typeof template === 'string') return [...template.matchAll(PLACEHOLDER)].map((m) => ({ path: m[1] as string, pointer }));
  if (Array.isArray(template)) return template.flatMap((item, i) => templatePaths(item, `${pointer}/${i}`));
  if (template !== null && typeof template === 'object') {
    return Object.entries(template).flatMap(([key, value]) =>
      templatePaths(value, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
  }
  return [];
}

function lookup(scope: TemplateScope, path: string): unknown {
  let value: unknown = scope;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Renders a template value against a scope. */
export function renderTemplate(template: unknown, scope: TemplateScope): unknown {
  if (typeof template === 'string') {
    const whole = WHOLE.exec(template);
    if (whole) return lookup(scope, whole[1] as string) ?? null;
    return template.replace(PLACEHOLDER, (_, path: string) => asText(lookup(scope, path)));
  }
  if (Array.isArray(template)) return template.map((item) => renderTemplate(item, scope));
  if (template !== null && typeof template === 'object') {
    return Object.fromEntries(Object.entries(template).map(([key, value]) => [key, renderTemplate(value, scope)]));
  }
  return template;
}

/** Renders a template that must produce text. */
export function renderText(template: string, scope: TemplateScope): string {
  return template.replace(PLACEHOLDER, (_, path: string) => asText(lookup(scope, path)));
}
