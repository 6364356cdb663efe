// Watch: a long-lived chunked response, one JSON event per line, served from the watch cache.
// resourceVersion unset or "0" starts with ADDED for every current object, taken from the
// cache's state (never a storage list per watcher); otherwise every event after that version
// is replayed, and a version this server has not reached yet is simply waited for. Selectors filter, and an object moving out of a
// selector is reported as DELETED, into it as ADDED, as Kubernetes does.
import { apiVersionOf, type KubeObject } from '../../api/object.js';
import { fieldsMatch, matches, parseFieldSelector, parseSelector, SelectorParseError } from '../../api/labels.js';
import { CompactedError, type WatchEvent } from '../../storage/store.js';
import type { WatchCache } from '../../storage/watch-cache.js';
import { badRequest, expired, internalError, StatusError } from '../errors.js';
import { queryBool } from '../query.js';
import { watchStartAt } from '../resource-version.js';
import { partialObjectMetadata, toTable } from '../table.js';
import { versioned, type HandlerContext } from './context.js';
import { decodedOnce, encodedBytesOnce } from '../encoded-once.js';
import { bodyWriter } from '../listener.js';

const defaultTimeoutSeconds = 1800;
const maxTimerMs = 2 ** 31 - 1;

// Every watcher of a resource sees the same events: each event's object is decoded once and
// serialised once per version and representation, however many watchers there are. An object
// stored under an earlier storage version is replaced by its conversion, also once.
const convertedByRegistry = new WeakMap<object, WeakMap<WatchEvent, KubeObject>>();

function decodedEvent(h: HandlerContext, ev: WatchEvent): KubeObject {
  return convertedByRegistry.get(h.reg)?.get(ev) ?? decodedOnce(h.reg, ev.value, ev.revision, ev.key);
}

/** Converts the events' objects stored under an earlier storage version, once for every watcher. */
async function currentOnce(h: HandlerContext, evs: WatchEvent[]): Promise<KubeObject[]> {
  const decoded = evs.map((ev) => decodedEvent(h, ev));
  const objs = await h.reg.current(decoded);
  let converted = convertedByRegistry.get(h.reg);
  if (!converted) convertedByRegistry.set(h.reg, (converted = new WeakMap()));
  // Only real conversions: an entry per event would keep every decoded version in the history alive.
  for (let i = 0; i < evs.length; i++) if (objs[i] !== decoded[i]) converted.set(evs[i]!, objs[i]!);
  return objs;
}
const bookmarkIntervalMs = 30_000;
/** A watch event line around the object's own cached bytes: `{"type":T,"object":…}` and a newline. */
const EVENT_LINE_START = { ADDED: Buffer.from('{"type":"ADDED","object":'), MODIFIED: Buffer.from('{"type":"MODIFIED","object":'), DELETED: Buffer.from('{"type":"DELETED","object":') };
const EVENT_LINE_END = Buffer.from('}\n');

export async function watchResource(h: HandlerContext, cache: WatchCache, bookmarkEveryMs = bookmarkIntervalMs): Promise<void> {
  let labelSelector, fieldSelector;
  try {
    labelSelector = parseSelector(h.query.get('labelSelector') ?? '');
    fieldSelector = parseFieldSelector(h.query.get('fieldSelector') ?? '');
  } catch (e) {
    if (e instanceof SelectorParseError) throw badRequest(e.message);
    throw e;
  }
  h.reg.checkFieldSelector(fieldSelector);
  const ns = h.info.namespace || undefined;
  const prefix = h.reg.listPrefix(ns);
  const name = h.info.name;
  const selected = (o: KubeObject) =>
    (!name || o.metadata.name === name) &&
    (!labelSelector.length || matches(labelSelector, o.metadata.labels)) &&
    (!fieldSelector.length || fieldsMatch(fieldSelector, h.reg.fieldSet(o)));

  const startAt = watchStartAt(h.query);
  // timeoutSeconds unset or 0 means the server's default, as in Kubernetes.
  const timeoutText = h.query.get('timeoutSeconds');
  const timeout = timeoutText === null || timeoutText === '' ? defaultTimeoutSeconds : Number(timeoutText);
  if (!Number.isInteger(timeout) || timeout < 0) throw badRequest(`invalid timeoutSeconds: ${timeoutText}`);
  const bookmarks = queryBool(h.query, 'allowWatchBookmarks');
  const table = h.accept === 'table';
  const res = h.res;

  // Metadata-only watches (metadata informers) get PartialObjectMetadata, as lists do.
  const metadataOnly = h.accept === 'partial-metadata';
  const encodeObject = (obj: KubeObject): string => JSON.stringify(table
    ? toTable(h.reg, [obj], { resourceVersion: obj.metadata.resourceVersion }, 'Metadata', (o) => versioned(h, o), undefined, h.version)
    : metadataOnly ? partialObjectMetadata(versioned(h, obj)) : versioned(h, obj));
  const encodingKey = `${h.reg.def.group}/${h.version.version}/${table ? 'table' : metadataOnly ? 'meta' : 'json'}`;
  // Each event line is one Buffer shared by every watcher of the same representation; its keys
  // are built once per watch, not per event.
  const lineKeys = { ADDED: `ADDED/${encodingKey}`, MODIFIED: `MODIFIED/${encodingKey}`, DELETED: `DELETED/${encodingKey}` };
  const encodeEvent = (type: keyof typeof lineKeys, obj: KubeObject): Buffer => encodedBytesOnce(obj, lineKeys[type],
    () => Buffer.concat([EVENT_LINE_START[type], encodedBytesOnce(obj, encodingKey, () => encodeObject(obj)), EVENT_LINE_END]));
  const filtered = !!name || labelSelector.length > 0 || fieldSelector.length > 0;

  // The state and the subscription below are taken in one synchronous step: nothing between.
  let after = startAt;
  const initial: WatchEvent[] = [];
  if (startAt === 0) {
    const snapshot = cache.snapshot(prefix);
    after = snapshot.revision;
    for (const ev of snapshot.items) if (selected(decodedEvent(h, ev))) initial.push(ev);
  }

  // No Content-Length: HTTP/1.1 chunks the body, HTTP/2 sends DATA frames.
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  res.flushHeaders();
  let done = false;
  // A version a CRD's conversion webhook converts, or objects stored under an earlier storage
  // version it converts: each write waits for its objects' conversion (one review for the
  // initial state, one per event), in arrival order. A failed conversion ends the watch with
  // an ERROR event carrying the 500.
  let converting = Promise.resolve();
  const send = bodyWriter(res);
  const converts = !!h.version.prepare || !!h.reg.def.convertStored;
  const write = (text: () => string | Buffer, evs: WatchEvent[]) => {
    const prepare = h.version.prepare;
    if (!converts) { send(text()); return; }
    converting = converting.then(async () => {
      if (done) return;
      const objs = await currentOnce(h, evs);
      await prepare?.(objs);
      if (!done) send(text());
    }).catch((e) => {
      if (done) return;
      send(`${JSON.stringify({ type: 'ERROR', object: (e instanceof StatusError ? e : internalError((e as Error).message)).toStatus() })}\n`);
      finish();
    });
  };
  if (initial.length) write(() => Buffer.concat(initial.map((ev) => encodeEvent('ADDED', decodedEvent(h, ev)))), initial);
  // One event: without a conversion to wait for (the usual case) its shared bytes are written
  // at once, with nothing allocated for this watcher.
  const writeEvent = (type: keyof typeof lineKeys, ev: WatchEvent, cur: KubeObject) => {
    if (!converts) send(encodeEvent(type, cur));
    else write(() => encodeEvent(type, decodedEvent(h, ev)), [ev]);
  };

  let lastRV = after;
  // An object this server cannot read (stored under an encryption key no longer configured)
  // ends the watch with an ERROR event carrying the 500, as kube-apiserver's watcher does; it
  // must not throw into the watch cache, which feeds every other watcher too.
  const onEvent = (ev: WatchEvent) => {
    try {
      deliver(ev);
    } catch (e) {
      if (!(e instanceof StatusError)) throw e;
      send(`${JSON.stringify({ type: 'ERROR', object: e.toStatus() })}\n`);
      finish();
    }
  };
  const deliver = (ev: WatchEvent) => {
    if (ev.revision === -1) {
      send(`${JSON.stringify({ type: 'ERROR', object: expired('the watch cache lost history; relist').toStatus() })}\n`);
      finish();
      return;
    }
    lastRV = ev.revision;
    const cur = decodedEvent(h, ev);
    if (ev.type === 'DELETE') {
      if (selected(cur)) writeEvent('DELETED', ev, cur);
      return;
    }
    const now = selected(cur);
    // Without selectors every object is selected; only a filtered watch needs the old state.
    const before = ev.prevValue ? (!filtered || selected(h.reg.decode(ev.prevValue, ev.revision, ev.key))) : false;
    if (now && before) writeEvent('MODIFIED', ev, cur);
    else if (now) writeEvent('ADDED', ev, cur);
    else if (before) writeEvent('DELETED', ev, cur);
  };

  let unsubscribe: () => void = () => undefined;
  const timers: NodeJS.Timeout[] = [];
  function finish() {
    if (done) return;
    done = true;
    unsubscribe();
    for (const t of timers) clearTimeout(t);
    res.end();
  }
  try {
    unsubscribe = cache.subscribe(prefix, after, onEvent);
  } catch (e) {
    if (e instanceof CompactedError) {
      send(`${JSON.stringify({ type: 'ERROR', object: expired(`too old resource version: ${after} (${e.compacted})`).toStatus() })}\n`);
      return finish();
    }
    throw e;
  }
  // An event replayed during subscribe may already have ended the watch.
  if (done) { unsubscribe(); return; }
  // Node fires a timer above 2^31-1 ms at once; a longer watch ends after that (24.8 days).
  timers.push(setTimeout(finish, Math.min((timeout || defaultTimeoutSeconds) * 1000, maxTimerMs)));
  if (bookmarks) {
    const tick = () => {
      if (done) return;
      const rv = Math.max(lastRV, cache.revision);
      const typeMeta = metadataOnly ? { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' } : { kind: h.reg.def.kind, apiVersion: apiVersionOf(h.reg.def.group, h.version.version) };
      write(() => `${JSON.stringify({ type: 'BOOKMARK', object: { ...typeMeta, metadata: { resourceVersion: String(rv) } } })}\n`, []);
      timers.push(setTimeout(tick, bookmarkEveryMs));
    };
    timers.push(setTimeout(tick, bookmarkEveryMs));
  }
  h.req.on('close', finish);
  res.on('close', finish);
}
