// The OpenAPI path items of one served resource: collection, item, all-namespaces list and
// subresources, each operation tagged with the kind it serves and the action it performs.
import { schemaFor } from '../schemas.js';
import { META } from '../meta/v1/names.js';
import { componentRef, type JSONObject } from './components.js';
import { createParams, deleteParams, listParams, patchParams, pathParam, pretty, updateParams } from './parameters.js';

/** A resource as the API server serves it; the server builds these from its registry. */
export interface ServedResource {
  group: string;
  version: string;
  /** Plural lower-case name used in URLs, e.g. deployments. */
  resource: string;
  kind: string;
  namespaced: boolean;
  /** Discovery verbs: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  subresources: { name: string; kind: string; group: string; version: string; verbs: string[] }[];
  /** Custom resources take no strategic merge patch; kubectl apply reads this to choose a merge patch. */
  customResource?: boolean;
}

export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
];

/** Subresources that upgrade to a stream (exec, attach, port-forward) or proxy traffic. */
const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward', 'proxy']);

type GVK = { group: string; version: string; kind: string };

export function groupVersionPrefix(group: string, version: string): string {
  return group ? `/apis/${group}/${version}` : `/api/${version}`;
}

const camel = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function groupCamel(group: string): string {
  if (!group) return 'Core';
  return group.replace(/\.k8s\.io$/, '').split('.').map(camel).join('');
}

export const tagFor = (group: string, version: string): string =>
  `${group ? group.replace(/\.k8s\.io$/, '').replace(/\./g, '_') : 'core'}_${version}`;

/** The component schema name for a kind, when one is registered. */
function schemaName(gvk: GVK): string | undefined {
  return schemaFor(gvk.group, gvk.version, gvk.kind)?.name;
}

const bodySchema = (name: string | undefined): JSONObject =>
  name ? { $ref: componentRef(name) } : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

function jsonContent(name: string | undefined, watch = false): JSONObject {
  const schema = bodySchema(name);
  const content: JSONObject = { 'application/json': { schema }, 'application/yaml': { schema } };
  if (watch) content['application/json;stream=watch'] = { schema };
  return content;
}

function responses(codes: string[], content: JSONObject): JSONObject {
  const text: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };
  const out: JSONObject = {};
  for (const code of codes) out[code] = { description: text[code], content };
  out['401'] = { description: 'Unauthorized' };
  return out;
}

interface OperationSpec {
  action: string;
  operationId: string;
  description: string;
  gvk: GVK;
  parameters?: JSONObject[];
  requestBody?: JSONObject;
  responses: JSONObject;
  tag: string;
}

function operation(o: OperationSpec): JSONObject {
  const op: JSONObject = { tags: [o.tag], description: o.description, operationId: o.operationId };
  if (o.parameters?.length) op.parameters = o.parameters;
  if (o.requestBody) op.requestBody = o.requestBody;
  op.responses = o.responses;
  op['x-kubernetes-action'] = o.action;
  op['x-kubernetes-group-version-kind'] = { group: o.gvk.group, kind: o.gvk.kind, version: o.gvk.version };
  return op;
}

const statusName = `${META}.Status`;
const deleteOptionsName = `${META}.DeleteOptions`;
const patchName = `${META}.Patch`;

const objectBody = (name: string | undefined): JSONObject =>
  ({ content: { '*/*': { schema: bodySchema(name) } }, required: true });
const STRATEGIC = 'application/strategic-merge-patch+json';
const patchBody = (custom: boolean | undefined): JSONObject => ({
  content: Object.fromEntries(PATCH_CONTENT_TYPES.filter((t) => !custom || t !== STRATEGIC)
    .map((t) => [t, { schema: { $ref: componentRef(patchName) } }])),
  required: true,
});
const deleteBody = (): JSONObject => ({ content: { '*/*': { schema: { $ref: componentRef(deleteOptionsName) } } } });

export interface ResourcePaths {
  paths: Record<string, JSONObject>;
  /** Component schema names the operations refer to. */
  schemas: Set<string>;
}

export function resourcePaths(r: ServedResource): ResourcePaths {
  const paths: Record<string, JSONObject> = {};
  const schemas = new Set<string>([statusName]);
  const gvk: GVK = { group: r.group, version: r.version, kind: r.kind };
  const kindName = schemaName(gvk);
  const listName = schemaName({ ...gvk, kind: `${r.kind}List` });
  for (const n of [kindName, listName]) if (n) schemas.add(n);
  const tag = tagFor(r.group, r.version);
  const base = groupVersionPrefix(r.group, r.version);
  const ns = r.namespaced ? 'Namespaced' : '';
  const id = (verb: string, suffix = ''): string => `${verb}${groupCamel(r.group)}${camel(r.version)}${ns}${r.kind}${suffix}`;
  const has = (v: string): boolean => r.verbs.includes(v);
  const collection = r.namespaced ? `${base}/namespaces/{namespace}/${r.resource}` : `${base}/${r.resource}`;
  const item = `${collection}/{name}`;
  const nsParam = r.namespaced ? [pathParam('namespace', 'Object name and auth scope, such as for teams and projects.')] : [];
  const nameParam = pathParam('name', `Name of the ${r.kind}.`);

  const coll: JSONObject = {};
  if (has('list')) {
    coll.get = operation({ action: 'list', operationId: id('list'), description: `List or watch objects of kind ${r.kind}.`, gvk, tag,
      parameters: listParams, responses: responses(['200'], jsonContent(listName, true)) });
  }
  if (has('create')) {
    coll.post = operation({ action: 'post', operationId: id('create'), description: `Create a ${r.kind}.`, gvk, tag,
      parameters: createParams, requestBody: objectBody(kindName), responses: responses(['200', '201', '202'], jsonContent(kindName)) });
  }
  if (has('deletecollection')) {
    schemas.add(deleteOptionsName);
    coll.delete = operation({ action: 'deletecollection', operationId: id('deleteCollection'), description: `Delete a collection of ${r.kind}.`, gvk, tag,
      parameters: [...listParams, ...deleteParams], requestBody: deleteBody(), responses: responses(['200'], jsonContent(statusName)) });
  }
  if (Object.keys(coll).length) paths[collection] = { ...coll, parameters: [...nsParam, pretty] };

  const one: JSONObject = {};
  if (has('get')) {
    one.get = operation({ action: 'get', operationId: id('read'), description: `Read the specified ${r.kind}.`, gvk, tag,
      responses: responses(['200'], jsonContent(kindName)) });
  }
  if (has('update')) {
    one.put = operation({ action: 'put', operationId: id('replace'), description: `Replace the specified ${r.kind}.`, gvk, tag,
      parameters: updateParams, requestBody: objectBody(kindName), responses: responses(['200', '201'], jsonContent(kindName)) });
  }
  if (has('patch')) {
    schemas.add(patchName);
    one.patch = operation({ action: 'patch', operationId: id('patch'), description: `Partially update the specified ${r.kind}.`, gvk, tag,
      parameters: patchParams, requestBody: patchBody(r.customResource), responses: responses(['200', '201'], jsonContent(kindName)) });
  }
  if (has('delete')) {
    schemas.add(deleteOptionsName);
    one.delete = operation({ action: 'delete', operationId: id('delete'), description: `Delete the specified ${r.kind}.`, gvk, tag,
      parameters: deleteParams, requestBody: deleteBody(), responses: responses(['200', '202'], jsonContent(kindName)) });
  }
  if (Object.keys(one).length) paths[item] = { ...one, parameters: [nameParam, ...nsParam, pretty] };

  if (r.namespaced && has('list')) {
    paths[`${base}/${r.resource}`] = {
      get: operation({ action: 'list', operationId: id('list', 'ForAllNamespaces').replace('Namespaced', ''),
        description: `List or watch objects of kind ${r.kind} in all namespaces.`, gvk, tag,
        parameters: listParams, responses: responses(['200'], jsonContent(listName, true)) }),
      parameters: [pretty],
    };
  }

  for (const sub of r.subresources) {
    const subGVK: GVK = { group: sub.group, version: sub.version, kind: sub.kind };
    const connect = CONNECT_SUBRESOURCES.has(sub.name);
    const subName = connect ? undefined : schemaName(subGVK);
    if (subName) schemas.add(subName);
    const content = sub.name === 'log' || connect
      ? { 'text/plain': { schema: { type: 'string' } } }
      : jsonContent(subName);
    const subId = (verb: string): string => id(verb, camel(sub.name));
    const ops: JSONObject = {};
    const subHas = (v: string): boolean => sub.verbs.includes(v);
    if (subHas('get')) {
      ops.get = operation({ action: connect ? 'connect' : 'get', operationId: connect ? subId('connectGet') : subId('read'),
        description: `${connect ? 'Connect to' : 'Read'} the ${sub.name} of the specified ${r.kind}.`, gvk: subGVK, tag,
        responses: responses(['200'], content) });
    }
    if (subHas('create')) {
      ops.post = operation({ action: connect ? 'connect' : 'post', operationId: connect ? subId('connectPost') : subId('create'),
        description: `${connect ? 'Connect to' : 'Create'} the ${sub.name} of the specified ${r.kind}.`, gvk: subGVK, tag,
        parameters: connect ? undefined : createParams, requestBody: connect ? undefined : objectBody(subName),
        responses: responses(connect ? ['200'] : ['200', '201', '202'], content) });
    }
    if (subHas('update')) {
      ops.put = operation({ action: 'put', operationId: subId('replace'), description: `Replace the ${sub.name} of the specified ${r.kind}.`,
        gvk: subGVK, tag, parameters: updateParams, requestBody: objectBody(subName), responses: responses(['200', '201'], content) });
    }
    if (subHas('patch')) {
      schemas.add(patchName);
      ops.patch = operation({ action: 'patch', operationId: subId('patch'), description: `Partially update the ${sub.name} of the specified ${r.kind}.`,
        gvk: subGVK, tag, parameters: patchParams, requestBody: patchBody(r.customResource), responses: responses(['200', '201'], content) });
    }
    if (Object.keys(ops).length) paths[`${item}/${sub.name}`] = { ...ops, parameters: [nameParam, ...nsParam, pretty] };
  }
  return { paths, schemas };
}
