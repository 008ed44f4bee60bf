// References between schemas: the documents a `$ref` can land in (each schema file and each
// embedded resource with its own `$id`), the check that every `$ref` of a schema resolves, and the
// walks that follow them (the schemas a schema reaches, the property names it declares).
import { SchemaDuplicateIdError, SchemaInvalidError, SchemaUnresolvedRefError } from './errors.js';
import { DATA_KEYWORDS, NAMED_SUBSCHEMAS, type LoadedSchema } from './model.js';
import { isRecord } from '../wire/index.js';

/** A JSON document (or embedded resource with its own `$id`) that a `$ref` can land in. */
interface RefDocument {
  file: string;
  root: unknown;
  anchors: Set<string>;
}

export function collectDocuments(schemas: LoadedSchema[]): Map<string, RefDocument> {
  const docs = new Map<string, RefDocument>();
  for (const loaded of schemas) {
    const visit = (node: unknown, base: string, doc: RefDocument) => {
      if (Array.isArray(node)) {
        for (const item of node) visit(item, base, doc);
        return;
      }
      if (!isRecord(node)) return;
      let here = base;
      let current = doc;
      if (typeof node.$id === 'string' && node !== loaded.schema) {
        here = resolveId(loaded.file, node.$id, base);
        current = { file: loaded.file, root: node, anchors: new Set() };
        const other = docs.get(stripHash(here));
        if (other) throw new SchemaDuplicateIdError(loaded.file, stripHash(here), other.file);
        docs.set(stripHash(here), current);
      }
      if (typeof node.$anchor === 'string') current.anchors.add(node.$anchor);
      if (typeof node.$dynamicAnchor === 'string') current.anchors.add(node.$dynamicAnchor);
      for (const [key, value] of Object.entries(node)) {
        if (DATA_KEYWORDS.has(key)) continue;
        if (NAMED_SUBSCHEMAS.has(key)) {
          if (isRecord(value)) for (const sub of Object.values(value)) visit(sub, here, current);
        } else {
          visit(value, here, current);
        }
      }
    };
    const doc: RefDocument = { file: loaded.file, root: loaded.schema, anchors: new Set() };
    const other = docs.get(loaded.id);
    if (other) throw new SchemaDuplicateIdError(other.file, loaded.id, loaded.file);
    docs.set(loaded.id, doc);
    visit(loaded.schema, loaded.id, doc);
  }
  return docs;
}

export function checkRefs(loaded: LoadedSchema, docs: Map<string, RefDocument>): void {
  const visit = (node: unknown, base: string) => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item, base);
      return;
    }
    if (!isRecord(node)) return;
    const here = typeof node.$id === 'string' ? resolveId(loaded.file, node.$id, base) : base;
    for (const key of ['$ref', '$dynamicRef'] as const) {
      const ref = node[key];
      if (ref === undefined) continue;
      if (typeof ref !== 'string') throw new SchemaUnresolvedRefError(loaded.file, String(ref), `${key} must be a string`);
      resolveRef(loaded.file, ref, here, docs);
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (NAMED_SUBSCHEMAS.has(key)) {
        if (isRecord(value)) for (const sub of Object.values(value)) visit(sub, here);
      } else {
        visit(value, here);
      }
    }
  };
  visit(loaded.schema, loaded.id);
}

function resolveRef(file: string, ref: string, base: string, docs: Map<string, RefDocument>): void {
  let url: URL;
  try {
    url = new URL(ref, base);
  } catch {
    throw new SchemaUnresolvedRefError(file, ref, 'not a valid URI reference');
  }
  const target = docs.get(stripHash(url.href));
  if (!target) throw new SchemaUnresolvedRefError(file, ref, `no loaded schema has $id ${stripHash(url.href)}`);
  let fragment: string;
  try {
    fragment = decodeURIComponent(url.hash.replace(/^#/, ''));
  } catch {
    throw new SchemaUnresolvedRefError(file, ref, 'its fragment has malformed percent-encoding');
  }
  if (fragment === '') return;
  if (!fragment.startsWith('/')) {
    if (!target.anchors.has(fragment)) throw new SchemaUnresolvedRefError(file, ref, `${target.file} has no $anchor ${JSON.stringify(fragment)}`);
    return;
  }
  let node: unknown = target.root;
  for (const token of fragment.slice(1).split('/')) {
    const key = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key) && Number(key) < node.length) node = node[Number(key)];
    else if (isRecord(node) && Object.hasOwn(node, key)) node = node[key];
    else throw new SchemaUnresolvedRefError(file, ref, `${target.file} has nothing at ${fragment}`);
  }
}

/** The absolute URI an embedded `$id` names, resolved against the enclosing base. */
function resolveId(file: string, id: string, base: string): string {
  try {
    return new URL(id, base).href;
  } catch {
    throw new SchemaInvalidError(file, `"$id" ${JSON.stringify(id)} is not a valid URI reference`);
  }
}

export function stripHash(href: string): string {
  const hash = href.indexOf('#');
  return hash === -1 ? href : href.slice(0, hash);
}

/** `start` and every schema file its `$ref`s reach, transitively, in the order they are first reached. */
export function referencedSchemas(start: LoadedSchema, byId: ReadonlyMap<string, LoadedSchema>): LoadedSchema[] {
  const reached: LoadedSchema[] = [];
  const seen = new Set<string>();
  const walkDoc = (loaded: LoadedSchema) => {
    if (seen.has(loaded.id)) return;
    seen.add(loaded.id);
    reached.push(loaded);
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (!isRecord(node)) return;
      for (const [key, value] of Object.entries(node)) {
        if (DATA_KEYWORDS.has(key)) continue;
        if (key === '$ref' && typeof value === 'string') {
          const target = byId.get(stripHash(new URL(value, loaded.id).href));
          if (target) walkDoc(target);
        }
        visit(value);
      }
    };
    visit(loaded.schema);
  };
  walkDoc(start);
  return reached;
}

/**
 * Every property name a schema declares (in `properties` or `required`), following its `$ref`s to
 * the definitions they name (not every definition of a referenced file: a shared defs file names
 * the members of every message, which would tell no two schemas apart).
 */
export function propertyNames(start: LoadedSchema, byId: ReadonlyMap<string, LoadedSchema>): Set<string> {
  const names = new Set<string>();
  const seen = new Set<string>();
  const follow = (ref: string, base: string): void => {
    const url = new URL(ref, base);
    const target = byId.get(stripHash(url.href));
    const key = `${target?.id ?? ''}${url.hash}`;
    if (!target || seen.has(key)) return;
    seen.add(key);
    let node: unknown = target.schema;
    for (const part of url.hash.replace(/^#\/?/, '').split('/').filter((p) => p !== '')) {
      node = isRecord(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    visit(node, target.id);
  };
  const visit = (node: unknown, base: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => visit(item, base));
    if (!isRecord(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key) || key === '$defs') continue;
      if (key === '$ref' && typeof value === 'string') follow(value, base);
      if (key === 'properties' && isRecord(value)) Object.keys(value).forEach((k) => names.add(k));
      if (key === 'required' && Array.isArray(value)) value.forEach((k) => typeof k === 'string' && names.add(k));
      visit(value, base);
    }
  };
  visit(start.schema, start.id);
  return names;
}
