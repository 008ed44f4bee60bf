// mcp-core: resources (CORE-RES) discovered from resources/list: the list and its pages, reads of
// what it names, unknown and escaping URIs, templates, subscriptions and resources/updated.
import { defineCase, requiresCapability, type CaseContext } from '../../../../src/harness/index.js';
import { isRecord } from '../../../../src/wire/index.js';
import { checkErrorCode, errorOf, openSession, type Message } from '../../../support/session.js';
import { checkNoLeaks, checkPageWalk, notificationsOf, randomName, reportSweep, sweepTools, walkPages } from '../../../support/core.js';

const SUITE = 'mcp-core';
const needsResources = requiresCapability('resources');
/** Most listed resources one case reads. */
const MAX_READS = 30;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The URIs resources/list names (all pages, bounded). */
async function listedUris(ctx: CaseContext): Promise<string[]> {
  const walk = await walkPages(ctx, 'resources/list', 'resources');
  return walk.items.filter(isRecord).map((r) => r.uri).filter((u): u is string => typeof u === 'string');
}

const resourcesList = defineCase({
  id: `${SUITE}/resources-list`,
  suite: SUITE,
  title: 'resources/list gives a resources array of resources with a string uri and name, through pages that end',
  requirements: ['CORE-RES-1', 'CORE-PAGE-1', 'CORE-PAGE-2'],
  applies: needsResources,
  async run(ctx) {
    await openSession(ctx);
    const walk = await walkPages(ctx, 'resources/list', 'resources', 'CORE-RES-1');
    if (walk.error) {
      ctx.check('CORE-RES-1', false, { message: 'resources/list is answered with a result', actual: walk.error.error });
      return;
    }
    checkPageWalk(ctx, walk, 'resources/list');
    ctx.check('CORE-RES-1', walk.pages.every((p) => Array.isArray(p.resources)), { message: 'every resources/list result has a resources array' });
    const bad = walk.items.filter((r) => !isRecord(r) || typeof r.uri !== 'string' || typeof r.name !== 'string');
    ctx.check('CORE-RES-1', bad.length === 0, {
      message: `each of the ${walk.items.length} resources has a string uri and name`,
      expected: { uri: 'string', name: 'string' },
      ...(bad.length ? { actual: bad } : {}),
    });
  },
});

const resourcesInvalidCursor = defineCase({
  id: `${SUITE}/resources-list-invalid-cursor`,
  suite: SUITE,
  title: 'resources/list with a cursor the server never gave is answered with -32602 Invalid params',
  requirements: ['CORE-PAGE-3'],
  applies: needsResources,
  async run(ctx) {
    await openSession(ctx);
    const cursor = randomName('x-conformance-cursor');
    checkErrorCode(ctx, 'CORE-PAGE-3', await ctx.request('CORE-PAGE-3', 'resources/list', { cursor }), -32602, `resources/list with the unknown cursor ${JSON.stringify(cursor)}`);
  },
});

/** Why a resources/read result breaks CORE-RES-3, or undefined. */
function contentsProblem(result: Message): string | undefined {
  if (!Array.isArray(result.contents)) return 'no contents array';
  for (const item of result.contents) {
    if (!isRecord(item) || typeof item.uri !== 'string') return 'an item without a string uri';
    const text = 'text' in item;
    const blob = 'blob' in item;
    // Both is noted by the case (the documents say "text or blob" without forbidding both).
    if (!text && !blob) return 'an item with neither text nor blob';
    if (text && typeof item.text !== 'string') return 'a text that is not a string';
    if (blob && (typeof item.blob !== 'string' || !BASE64.test(item.blob))) return 'a blob that is not a base64 string';
  }
  return undefined;
}

const readListed = defineCase({
  id: `${SUITE}/resources-read-listed`,
  suite: SUITE,
  title: 'resources/read of each listed resource gives contents items with a uri and exactly one of text or base64 blob; a failure is -32603 and the session stays usable',
  requirements: ['CORE-RES-3', 'CORE-ERR-2', 'CORE-ERR-3'],
  applies: needsResources,
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const uris = (await listedUris(ctx)).slice(0, MAX_READS);
    if (uris.length === 0) {
      ctx.info('CORE-RES-3', 'resources/list named no resource to read');
      return;
    }
    const answers: Message[] = [];
    for (const uri of uris) {
      const answer = await ctx.request('CORE-RES-3', 'resources/read', { uri });
      if (!answer) continue;
      answers.push(answer);
      const error = errorOf(answer);
      if (error) {
        ctx.check('CORE-ERR-2', error.code === -32603, { message: `the listed resource ${uri} failed to read; an unexpected failure is -32603 Internal error`, expected: { code: -32603 }, actual: error });
        const ping = await ctx.request('CORE-ERR-2', 'ping');
        if (ping) ctx.check('CORE-ERR-2', isRecord(ping.result), { message: 'the session stays usable after the failure (ping answered)', actual: ping.error ?? ping.result });
        continue;
      }
      const result = isRecord(answer.result) ? answer.result : {};
      const problem = contentsProblem(result);
      ctx.check('CORE-RES-3', problem === undefined, { message: `resources/read of ${uri} gives well-formed contents${problem ? ` (${problem})` : ''}`, actual: answer.result });
      if (problem === undefined && (result.contents as unknown[]).some((item) => isRecord(item) && 'text' in item && 'blob' in item)) {
        ctx.info('CORE-RES-3', `resources/read of ${uri} gives an item carrying both text and blob`, answer.result);
      }
    }
    checkNoLeaks(ctx, answers, uris);
  },
});

/** `scheme://` of the first listed URI (a scheme the server serves), or file://. */
function schemeOf(uris: readonly string[]): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.exec(uris[0] ?? '')?.[0] ?? 'file:///';
}

const readUnknown = defineCase({
  id: `${SUITE}/resources-read-unknown`,
  suite: SUITE,
  title: 'resources/read of a URI the server does not have (of a scheme it serves, and of one nobody serves) is answered with a JSON-RPC error',
  requirements: ['CORE-RES-2', 'CORE-ERR-3'],
  applies: needsResources,
  async run(ctx) {
    await openSession(ctx);
    const uris = [`${schemeOf(await listedUris(ctx))}${randomName('x-conformance-missing')}`, `${randomName('x-conformance-scheme')}://nowhere/${randomName('missing')}`];
    const answers: Message[] = [];
    for (const uri of uris) {
      const answer = await ctx.request('CORE-RES-2', 'resources/read', { uri });
      if (!answer) continue;
      answers.push(answer);
      const error = errorOf(answer);
      if (ctx.check('CORE-RES-2', error !== undefined, { message: `resources/read of the unknown URI ${uri} is answered with an error`, expected: { error: { code: -32002 } }, actual: answer.result })) {
        const reading = ({ [-32002]: 1, [-32001]: 2, [-32602]: 3 } as Record<number, number>)[error!.code as number];
        if (reading !== undefined) ctx.reading('CORE-RES-2', reading, `for ${uri}`, error);
        else ctx.info('CORE-RES-2', `error code ${String(error!.code)} for ${uri}, none of the listed readings (-32002, -32001, -32602)`, error);
      }
    }
    checkNoLeaks(ctx, answers, uris);
  },
});

const readTraversal = defineCase({
  id: `${SUITE}/resources-read-path-traversal`,
  suite: SUITE,
  title: 'resources/read of a URI that climbs out of the resource root with ".." is refused with an error',
  requirements: ['CORE-RES-4'],
  applies: needsResources,
  async run(ctx) {
    await openSession(ctx);
    const uris = await listedUris(ctx);
    const base = uris[0] ?? 'file:///conformance/readme.txt';
    for (const uri of [`${base.replace(/\/[^/]*$/, '')}/../../../../../../etc/passwd`, `${schemeOf(uris)}%2e%2e/%2e%2e/%2e%2e/etc/passwd`]) {
      const answer = await ctx.request('CORE-RES-4', 'resources/read', { uri });
      if (answer) ctx.check('CORE-RES-4', errorOf(answer) !== undefined, { message: `resources/read of ${uri} is refused with an error`, expected: 'an error', actual: answer.result });
    }
  },
});

const templates = defineCase({
  id: `${SUITE}/resources-templates-list`,
  suite: SUITE,
  title: 'resources/templates/list gives a resourceTemplates array of templates with a string uriTemplate and name',
  requirements: ['CORE-RES-6'],
  applies: needsResources,
  async run(ctx) {
    await openSession(ctx);
    const answer = await ctx.request('CORE-RES-6', 'resources/templates/list', {});
    if (!answer) return;
    if (!isRecord(answer.result)) {
      ctx.info('CORE-RES-6', 'resources/templates/list was answered with an error; no templates to check', answer.error);
      return;
    }
    const list = answer.result.resourceTemplates;
    if (!ctx.check('CORE-RES-6', Array.isArray(list), { message: 'the result has a resourceTemplates array', actual: answer.result })) return;
    const bad = (list as unknown[]).filter((t) => !isRecord(t) || typeof t.uriTemplate !== 'string' || typeof t.name !== 'string');
    ctx.check('CORE-RES-6', bad.length === 0, { message: `each of the ${(list as unknown[]).length} templates has a string uriTemplate and name`, ...(bad.length ? { actual: bad } : {}) });
  },
});

const subscribe = defineCase({
  id: `${SUITE}/resources-subscribe-unsubscribe`,
  suite: SUITE,
  title: 'resources/subscribe of a listed URI is answered with {} (or refused for that resource), and unsubscribing from it is answered with {}',
  requirements: ['CORE-RES-7', 'CORE-RPC-14'],
  applies: (discovery) => {
    const resources = discovery.capabilities?.resources;
    return isRecord(resources) && resources.subscribe === true ? true : 'the target did not declare resources.subscribe: true';
  },
  async run(ctx) {
    await openSession(ctx);
    const uris = (await listedUris(ctx)).slice(0, MAX_SUBSCRIBE_TRIES);
    if (uris.length === 0) {
      ctx.info('CORE-RES-7', 'resources/list named no resource to subscribe to');
      return;
    }
    // 003 §5.6 lets a server refuse to let a resource be watched ("subscription not allowed"): try the listed ones until one is accepted.
    let subscribed: string | undefined;
    for (const uri of uris) {
      const answer = await ctx.request('CORE-RES-7', 'resources/subscribe', { uri });
      if (!answer) return;
      if (isRecord(answer.result)) {
        checkEmpty(ctx, 'resources/subscribe', answer.result);
        subscribed = uri;
        break;
      }
      ctx.reading('CORE-RES-7', 2, `resources/subscribe of ${uri} was refused`, answer.error);
    }
    if (subscribed === undefined) {
      ctx.info('CORE-RES-7', `none of the ${uris.length} listed resource(s) tried could be subscribed to`);
      return;
    }
    const answer = await ctx.request('CORE-RES-7', 'resources/unsubscribe', { uri: subscribed });
    if (!answer) return;
    if (ctx.check('CORE-RES-7', isRecord(answer.result), { message: `resources/unsubscribe of ${subscribed}, which it just accepted a subscription to, is accepted`, expected: { result: {} }, actual: answer.error ?? answer.result })) {
      checkEmpty(ctx, 'resources/unsubscribe', answer.result as Message);
      ctx.reading('CORE-RES-7', 1, `for ${subscribed}`);
    }
  },
});

/** Most listed resources the subscribe case tries before it finds one that may be watched. */
const MAX_SUBSCRIBE_TRIES = 5;

/** CORE-RPC-14: a data-less result is an object; members in it (`_meta`, extensions) are noted. */
function checkEmpty(ctx: CaseContext, method: string, result: Message): void {
  ctx.check('CORE-RPC-14', isRecord(result), { message: `${method} is answered with a result object`, expected: {}, actual: result });
  if (Object.keys(result).length > 0) ctx.info('CORE-RPC-14', `the ${method} result carries members besides {}: ${Object.keys(result).join(', ')}`, result);
}

const updatedOnlySubscribed = defineCase({
  id: `${SUITE}/resources-updated-only-when-subscribed`,
  suite: SUITE,
  title: 'no notifications/resources/updated arrives for a URI the client never subscribed to, while every listed tool runs',
  requirements: ['CORE-RES-5'],
  applies: (discovery) => (discovery.capabilities?.resources === undefined ? 'the target did not declare the "resources" capability' : requiresCapability('tools')(discovery)),
  timeLimitMs: 15_000,
  async run(ctx) {
    await openSession(ctx);
    const uris = await listedUris(ctx);
    const sweep = await sweepTools(ctx, { hints: { uris } });
    reportSweep(ctx, 'CORE-RES-5', sweep);
    const updated = notificationsOf(sweep.received, 'notifications/resources/updated').map((n) => n.params);
    ctx.check('CORE-RES-5', updated.length === 0, { message: 'no notifications/resources/updated without a subscription', ...(updated.length ? { actual: updated } : {}) });
  },
});

export const cases = [resourcesList, resourcesInvalidCursor, readListed, readUnknown, readTraversal, templates, subscribe, updatedOnlySubscribed];
