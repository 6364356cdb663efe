// Reading and decoding request bodies. Limits come first: nothing over 3 MiB is read,
// nothing nests deeper than maxNestingDepth, YAML aliases expand within go-yaml's budget and
// to no more than 3 MiB, and nothing that fails to decode reaches the handlers.
import type { IncomingMessage } from 'node:http';
import yaml from 'js-yaml';
import { badRequest, StatusError, tooLarge, unsupportedMediaType } from './errors.js';
import { bodyKind, type BodyKind } from './negotiate.js';
import { jsonDuplicateKeys } from './duplicate-fields.js';
import { checkYAMLExpansion, jsonTooDeep, jsonTooDeepMessage } from './decode-limits.js';
import { maxBodyBytes, maxNestingDepth } from './limits.js';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from './protobuf/index.js';

export { maxBodyBytes } from './limits.js';

/**
 * The whole body. Listeners rather than `for await`: an async iterator per request (and a
 * promise per chunk) costs more than the read itself, and a body is nearly always one chunk.
 */
export function readBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBodyBytes) {
    req.resume();
    return Promise.reject(tooLarge('Request entity too large: limit is 3145728'));
  }
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBodyBytes) {
        done();
        // The rest is drained unread; the 413 closes the connection.
        req.resume();
        reject(tooLarge('Request entity too large: limit is 3145728'));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (err: Error) => {
      done();
      reject(err);
    };
    // The client went away before the body ended.
    const onClose = () => {
      done();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

export interface DecodedBody {
  kind: BodyKind;
  value: unknown;
  raw: Buffer;
  /** Duplicate keys the decoder resolved to their last value, as Kubernetes words them. */
  duplicates: string[];
}

/** Decodes JSON, YAML or Kubernetes protobuf (patches are JSON; apply patches are YAML, of which JSON is a subset). */
export function decodeBody(raw: Buffer, contentType: string | undefined): DecodedBody {
  const kind = bodyKind(contentType);
  if (!kind) throw unsupportedMediaType(String(contentType));
  if (kind === 'protobuf') {
    try {
      return { kind, value: decodeKubernetesProtobuf(raw).object, raw, duplicates: [] };
    } catch (e) {
      if (e instanceof ProtobufDecodeError) throw badRequest(e.message);
      throw e;
    }
  }
  const text = raw.toString('utf8');
  if (!text.trim()) throw badRequest('the body of the request was empty');
  if (kind === 'yaml' || kind === 'apply-patch') {
    const load = (json: boolean) => {
      // js-yaml's own depth limit keeps its recursion short; checkYAMLExpansion is the rule.
      const docs = yaml.loadAll(text, undefined, { json, maxDepth: maxNestingDepth + 2 } as yaml.LoadOptions);
      if (docs.length !== 1) throw new Error('expected a single YAML document');
      checkYAMLExpansion(docs[0]);
      return docs[0];
    };
    try {
      return { kind, value: load(false), raw, duplicates: [] };
    } catch (e) {
      if (e instanceof StatusError) throw e;
      if (/^nesting exceeded maxDepth/.test((e as { reason?: string }).reason ?? '')) throw badRequest(`error converting YAML to JSON: yaml: ${jsonTooDeepMessage}`);
      // A duplicate key is for fieldValidation to judge: decode again keeping the last value.
      const mark = (e as { mark?: { line: number } }).mark;
      const dup = /^duplicated mapping key/.test((e as { reason?: string }).reason ?? '') && mark
        ? /^\s*("[^"]*"|'[^']*'|[^:]+?)\s*:/.exec(text.split('\n')[mark.line] ?? '')?.[1]?.replace(/^["']|["']$/g, '')
        : undefined;
      if (dup !== undefined) {
        try {
          return { kind, value: load(true), raw, duplicates: [`line ${mark!.line + 1}: key ${JSON.stringify(dup)} already set in map`] };
        } catch (again) {
          if (again instanceof StatusError) throw again;
          // else fall through to the original error
        }
      }
      throw badRequest(`error converting YAML to JSON: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  if (jsonTooDeep(text)) throw badRequest(`couldn't get version/kind; json parse error: ${jsonTooDeepMessage}`);
  try {
    const value: unknown = JSON.parse(text);
    return { kind, value, raw, duplicates: jsonDuplicateKeys(text).map((k) => `duplicate field ${JSON.stringify(k)}`) };
  } catch (e) {
    throw badRequest(`couldn't get version/kind; json parse error: ${(e as Error).message}`);
  }
}
