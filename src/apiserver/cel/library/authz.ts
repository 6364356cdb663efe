// The Kubernetes authorizer library (apiserver/pkg/cel/library/authz.go):
// `authorizer.group(g).resource(r).namespace(ns).name(n).check(verb).allowed()`,
// `authorizer.path(p).check(verb)`, `authorizer.serviceAccount(ns, name)` and
// `authorizer.requestResource`, answered by the API server's real authorizer.
//
// CEL runs synchronously and authorizers may answer later, so a check not yet answered
// fails the evaluation with `pending`; the evaluator (evaluate.ts) waits for every pending
// answer and runs the expression again, now from the answers it holds.
import { celMethod, CelScalar, type CelFunc, type CelMap } from '@bufbuild/cel';
import { anyMap, fieldsOf, opaque, text } from './opaque.js';

const { STRING, BOOL } = CelScalar;

/** What one check asks; `serviceAccount` ("ns/name") replaces the requesting user. */
export interface AuthzQuestion {
  verb: string;
  isResourceRequest: boolean;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  path: string;
  serviceAccount?: string;
}

export interface AuthzAnswer { allowed: boolean; reason: string; error?: string }

export type AuthzDecide = (q: AuthzQuestion) => AuthzAnswer | Promise<AuthzAnswer>;

/** One request's authorizer: its answers so far and the ones still awaited. */
export class AuthzSession {
  readonly answers = new Map<string, AuthzAnswer>();
  readonly pending: Promise<void>[] = [];
  constructor(private decide: AuthzDecide) {}

  ask(q: AuthzQuestion): AuthzAnswer | undefined {
    const key = JSON.stringify(q);
    const known = this.answers.get(key);
    if (known) return known;
    const settle = (a: AuthzAnswer) => { this.answers.set(key, a); return a; };
    let r: AuthzAnswer | Promise<AuthzAnswer>;
    try { r = this.decide(q); } catch (e) { return settle({ allowed: false, reason: '', error: (e as Error).message }); }
    if (!(r instanceof Promise)) return settle(r);
    this.pending.push(r.then((a) => { settle(a); }, (e: Error) => { settle({ allowed: false, reason: '', error: e.message }); }));
    return undefined;
  }
}

export const PENDING = 'authorization pending';
let active: AuthzSession | undefined;

/** Runs `fn` with `session` answering the library's checks. */
export function withAuthz<T>(session: AuthzSession | undefined, fn: () => T): T {
  const prev = active;
  active = session;
  try { return fn(); } finally { active = prev; }
}

const AUTHORIZER = 'kubernetes.authorization.Authorizer';
const GROUP = 'kubernetes.authorization.GroupCheck';
const RESOURCE = 'kubernetes.authorization.ResourceCheck';
const PATH = 'kubernetes.authorization.PathCheck';
const DECISION = 'kubernetes.authorization.Decision';

export interface RequestResource { group: string; resource: string; subresource: string; namespace: string; name: string }

/** The `authorizer` variable of a request. */
export function authorizerValue(request?: RequestResource): CelMap {
  const fields: Record<string, string | CelMap> = {};
  if (request) fields.requestResource = opaque(RESOURCE, { sa: '', ...request });
  return opaque(AUTHORIZER, { sa: '', ...fields });
}

function ask(q: AuthzQuestion): CelMap {
  if (!active) throw new Error('no authorizer is available in this context');
  const a = active.ask(q);
  if (!a) throw new Error(PENDING);
  return opaque(DECISION, { allowed: a.allowed, reason: a.reason, error: a.error ?? '' });
}

const withField = (m: CelMap, type: string, key: string, value: string) => {
  const fields: Record<string, string> = {};
  for (const [k, v] of m) if (k !== '@type' && typeof v === 'string') fields[String(k)] = v;
  return opaque(type, { ...fields, [key]: value });
};

const question = (m: CelMap, verb: string, isResourceRequest: boolean): AuthzQuestion => ({
  verb, isResourceRequest, group: text(m, 'group'), resource: text(m, 'resource'), subresource: text(m, 'subresource'),
  namespace: text(m, 'namespace'), name: text(m, 'name'), path: text(m, 'path'), ...(text(m, 'sa') ? { serviceAccount: text(m, 'sa') } : {}),
});

export const authzLibrary: CelFunc[] = [
  celMethod('serviceAccount', anyMap, [STRING, STRING], anyMap, function (ns, name) { fieldsOf(this, AUTHORIZER, 'serviceAccount'); return opaque(AUTHORIZER, { sa: `${ns}/${name}` }); }),
  celMethod('path', anyMap, [STRING], anyMap, function (p) { return withField(fieldsOf(this, AUTHORIZER, 'path'), PATH, 'path', p); }),
  celMethod('group', anyMap, [STRING], anyMap, function (g) { return withField(fieldsOf(this, AUTHORIZER, 'group'), GROUP, 'group', g); }),
  celMethod('resource', anyMap, [STRING], anyMap, function (r) { return withField(fieldsOf(this, GROUP, 'resource'), RESOURCE, 'resource', r); }),
  celMethod('subresource', anyMap, [STRING], anyMap, function (s) { return withField(fieldsOf(this, RESOURCE, 'subresource'), RESOURCE, 'subresource', s); }),
  celMethod('namespace', anyMap, [STRING], anyMap, function (s) { return withField(fieldsOf(this, RESOURCE, 'namespace'), RESOURCE, 'namespace', s); }),
  celMethod('name', anyMap, [STRING], anyMap, function (s) { return withField(fieldsOf(this, RESOURCE, 'name'), RESOURCE, 'name', s); }),
  celMethod('check', anyMap, [STRING], anyMap, function (verb) {
    if (this.get('@type') === PATH) return ask(question(this, verb, false));
    return ask(question(fieldsOf(this, RESOURCE, 'check'), verb, true));
  }),
  celMethod('allowed', anyMap, [], BOOL, function () { return fieldsOf(this, DECISION, 'allowed').get('allowed') === true; }),
  celMethod('reason', anyMap, [], STRING, function () { return text(fieldsOf(this, DECISION, 'reason'), 'reason'); }),
  celMethod('errored', anyMap, [], BOOL, function () { return text(fieldsOf(this, DECISION, 'errored'), 'error') !== ''; }),
  celMethod('error', anyMap, [], STRING, function () { return text(fieldsOf(this, DECISION, 'error'), 'error'); }),
];
