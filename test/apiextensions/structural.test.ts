// Structural schemas of custom resources: validation messages and paths as kube-apiserver
// gives them, defaulting, pruning, and the checks that refuse non-structural CRD schemas.
import t from 'tap';
import { validateValue } from '../../src/api/apiextensions/validate-value.js';
import { applyDefaults } from '../../src/api/apiextensions/defaulting.js';
import { prune } from '../../src/api/apiextensions/pruning.js';
import { checkSchema } from '../../src/api/apiextensions/schema-check.js';
import type { JSONSchemaProps } from '../../src/api/apiextensions/structural.js';
import { fieldErrorText } from '../../src/apiserver/errors.js';

const spec = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps =>
  ({ type: 'object', properties: { spec: { type: 'object', properties, ...extra } } });
const errorsOf = (schema: JSONSchemaProps, value: unknown): string[] => validateValue(value, schema).map(fieldErrorText);

const validation: [string, JSONSchemaProps, unknown, string[]][] = [
  ['integer given a string', spec({ replicas: { type: 'integer' } }), { spec: { replicas: 'two' } },
    ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"']],
  ['integer given a fraction', spec({ replicas: { type: 'integer' } }), { spec: { replicas: 1.5 } },
    ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"']],
  ['number accepts an integer', spec({ ratio: { type: 'number' } }), { spec: { ratio: 2 } }, []],
  ['boolean given a string', spec({ on: { type: 'boolean' } }), { spec: { on: 'yes' } },
    ['spec.on: Invalid value: "string": spec.on in body must be of type boolean: "string"']],
  ['object given an array', spec({ o: { type: 'object' } }), { spec: { o: [] } },
    ['spec.o: Invalid value: "array": spec.o in body must be of type object: "array"']],
  ['null without nullable', spec({ s: { type: 'string' } }), { spec: { s: null } },
    ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"']],
  ['null with nullable', spec({ s: { type: 'string', nullable: true } }), { spec: { s: null } }, []],
  ['required', spec({ image: { type: 'string' }, size: { type: 'integer' } }, { required: ['image', 'size'] }), { spec: { size: 1 } },
    ['spec.image: Required value']],
  ['enum', spec({ mode: { type: 'string', enum: ['fast', 'slow'] } }), { spec: { mode: 'quick' } },
    ['spec.mode: Unsupported value: "quick": supported values: "fast", "slow"']],
  ['pattern', spec({ cron: { type: 'string', pattern: '^\\d+$' } }), { spec: { cron: 'abc' } },
    ['spec.cron: Invalid value: "abc": spec.cron in body should match \'^\\d+$\'']],
  ['maximum', spec({ n: { type: 'integer', maximum: 10 } }), { spec: { n: 15 } },
    ['spec.n: Invalid value: 15: spec.n in body should be less than or equal to 10']],
  ['exclusive maximum', spec({ n: { type: 'integer', maximum: 10, exclusiveMaximum: true } }), { spec: { n: 10 } },
    ['spec.n: Invalid value: 10: spec.n in body should be less than 10']],
  ['minimum', spec({ n: { type: 'integer', minimum: 1 } }), { spec: { n: 0 } },
    ['spec.n: Invalid value: 0: spec.n in body should be greater than or equal to 1']],
  ['exclusive minimum', spec({ n: { type: 'number', minimum: 0, exclusiveMinimum: true } }), { spec: { n: 0 } },
    ['spec.n: Invalid value: 0: spec.n in body should be greater than 0']],
  ['multipleOf', spec({ n: { type: 'integer', multipleOf: 5 } }), { spec: { n: 7 } },
    ['spec.n: Invalid value: 7: spec.n in body should be a multiple of 5']],
  ['maxLength', spec({ s: { type: 'string', maxLength: 3 } }), { spec: { s: 'abcd' } },
    ['spec.s: Too long: may not be more than 3 bytes']],
  ['minLength', spec({ s: { type: 'string', minLength: 3 } }), { spec: { s: 'ab' } },
    ['spec.s: Invalid value: "ab": spec.s in body should be at least 3 chars long']],
  ['maxItems', spec({ l: { type: 'array', items: { type: 'string' }, maxItems: 1 } }), { spec: { l: ['a', 'b'] } },
    ['spec.l: Too many: 2: must have at most 1 items']],
  ['minItems', spec({ l: { type: 'array', items: { type: 'string' }, minItems: 2 } }), { spec: { l: ['a'] } },
    ['spec.l: Invalid value: ["a"]: spec.l in body should have at least 2 items']],
  ['items are validated with their index', spec({ l: { type: 'array', items: { type: 'object', properties: { port: { type: 'integer' } } } } }),
    { spec: { l: [{ port: 1 }, { port: 'x' }] } },
    ['spec.l[1].port: Invalid value: "string": spec.l[1].port in body must be of type integer: "string"']],
  ['additionalProperties values', spec({ m: { type: 'object', additionalProperties: { type: 'integer' } } }), { spec: { m: { a: 1, b: 'x' } } },
    ['spec.m.b: Invalid value: "string": spec.m.b in body must be of type integer: "string"']],
  ['maxProperties', spec({ m: { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 1 } }), { spec: { m: { a: 'x', b: 'y' } } },
    ['spec.m: Too many: 2: must have at most 1 items']],
  ['int-or-string accepts both', spec({ p: { 'x-kubernetes-int-or-string': true } }), { spec: { p: 'http' } }, []],
  ['int-or-string refuses a boolean', spec({ p: { 'x-kubernetes-int-or-string': true } }), { spec: { p: true } },
    ['spec.p: Invalid value: "boolean": spec.p in body must be of type integer,string: "boolean"']],
  ['preserve-unknown-fields without a type takes anything', spec({ any: { 'x-kubernetes-preserve-unknown-fields': true } }), { spec: { any: [1, { a: 2 }] } }, []],
  ['format date-time', spec({ at: { type: 'string', format: 'date-time' } }), { spec: { at: 'yesterday' } },
    ['spec.at: Invalid value: "yesterday": spec.at in body must be of type date-time: "yesterday"']],
  ['format date-time accepted', spec({ at: { type: 'string', format: 'date-time' } }), { spec: { at: '2024-01-02T03:04:05Z' } }, []],
  ['format ipv4', spec({ ip: { type: 'string', format: 'ipv4' } }), { spec: { ip: '10.0.0.300' } },
    ['spec.ip: Invalid value: "10.0.0.300": spec.ip in body must be of type ipv4: "10.0.0.300"']],
  ['unknown format accepted', spec({ s: { type: 'string', format: 'my-format' } }), { spec: { s: 'whatever' } }, []],
  ['embedded resource needs apiVersion and kind', spec({ tmpl: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } }),
    { spec: { tmpl: { metadata: {} } } },
    ['spec.tmpl.apiVersion: Required value: must not be empty', 'spec.tmpl.kind: Required value: must not be empty']],
  ['list-type set refuses duplicates', spec({ s: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' } }), { spec: { s: ['a', 'b', 'a'] } },
    ['spec.s[2]: Duplicate value: "a"']],
  ['list-type map refuses duplicate keys', spec({ l: { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, v: { type: 'integer' } } } } }),
    { spec: { l: [{ name: 'a', v: 1 }, { name: 'a', v: 2 }] } },
    ['spec.l[1]: Duplicate value: "a"']],
  ['anyOf', spec({ v: { anyOf: [{ type: 'integer' }, { type: 'string' }] } as JSONSchemaProps }), { spec: { v: true } },
    ['spec.v: Invalid value: true: spec.v in body must validate at least one schema (anyOf)', 'spec.v: Invalid value: "boolean": spec.v in body must be of type integer: "boolean"']],
  ['several errors are all reported', spec({ a: { type: 'integer', maximum: 1 }, b: { type: 'string', enum: ['x'] } }), { spec: { a: 2, b: 'y' } },
    ['spec.a: Invalid value: 2: spec.a in body should be less than or equal to 1', 'spec.b: Unsupported value: "y": supported values: "x"']],
];

t.test('validation', async (t) => {
  for (const [name, schema, value, want] of validation) t.same(errorsOf(schema, value), want, name);
});

t.test('defaulting', async (t) => {
  const schema: JSONSchemaProps = spec({
    replicas: { type: 'integer', default: 1 },
    mode: { type: 'string', default: 'slow' },
    nested: { type: 'object', default: {}, properties: { a: { type: 'string', default: 'x' } } },
    ports: { type: 'array', items: { type: 'object', properties: { protocol: { type: 'string', default: 'TCP' } } } },
    labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'integer', default: 0 } } } },
    nulled: { type: 'string', default: 'd' },
    nullable: { type: 'string', nullable: true, default: 'd' },
  });
  const obj = { spec: { replicas: 3, ports: [{}, { protocol: 'UDP' }], labels: { k: {} }, nulled: null, nullable: null } };
  applyDefaults(obj, schema);
  t.same(obj.spec, {
    replicas: 3, mode: 'slow', nested: { a: 'x' }, ports: [{ protocol: 'TCP' }, { protocol: 'UDP' }],
    labels: { k: { v: 0 } }, nulled: 'd', nullable: null,
  }, 'defaults fill absent fields top down; a given value and a nullable null stay');
  const noSpec: Record<string, unknown> = {};
  applyDefaults(noSpec, schema);
  t.same(noSpec, {}, 'an absent object without a default is not created');
});

t.test('pruning', async (t) => {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          known: { type: 'string' },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          map: { type: 'object', additionalProperties: { type: 'object', properties: { a: { type: 'string' } } } },
          list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
          tmpl: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object' } } },
          partly: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { inner: { type: 'object', properties: { x: { type: 'string' } } } } },
        },
      },
    },
  };
  const obj = {
    apiVersion: 'example.com/v1', kind: 'W', metadata: { name: 'n' },
    spec: {
      known: 'k', unknown: 1, free: { anything: { deep: true } },
      map: { m1: { a: 'x', b: 'y' } }, list: [{ a: '1', c: '2' }],
      tmpl: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {}, extra: 1 },
      partly: { kept: 1, inner: { x: 'x', y: 'y' } },
    },
    top: 'level',
  };
  const { removed, embeddedMetadata } = prune(obj, schema);
  t.same(removed.sort(), ['spec.list[0].c', 'spec.map.m1.b', 'spec.partly.inner.y', 'spec.tmpl.extra', 'spec.unknown', 'top']);
  t.same(embeddedMetadata, ['spec.tmpl.metadata']);
  t.same(obj.spec, {
    known: 'k', free: { anything: { deep: true } }, map: { m1: { a: 'x' } }, list: [{ a: '1' }],
    tmpl: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }, partly: { kept: 1, inner: { x: 'x' } },
  });
  t.equal(obj.apiVersion, 'example.com/v1', 'type meta kept at the root');
});

const P = 'spec.versions[0].schema.openAPIV3Schema';
const structural: [string, unknown, string[]][] = [
  ['a plain structural schema', spec({ a: { type: 'string' } }), []],
  ['missing schema', undefined, [`${P}: Required value: schemas are required`]],
  ['root must be an object', { type: 'string' }, [`${P}.type: Invalid value: "string": must be object at the root`]],
  ['a field without type', spec({ a: { description: 'x' } }),
    [`${P}.properties[spec].properties[a].type: Required value: must not be empty for specified object fields`]],
  ['array items without type', spec({ l: { type: 'array', items: { description: 'x' } } }),
    [`${P}.properties[spec].properties[l].items.type: Required value: must not be empty for specified array items`]],
  ['array without items', spec({ l: { type: 'array' } }), [`${P}.properties[spec].properties[l].items: Required value: must be specified`]],
  ['int-or-string with a type', spec({ p: { type: 'string', 'x-kubernetes-int-or-string': true } }),
    [`${P}.properties[spec].properties[p].type: Invalid value: "string": must be empty if x-kubernetes-int-or-string is true`]],
  ['preserve-unknown-fields false', spec({ p: { type: 'object', 'x-kubernetes-preserve-unknown-fields': false } }),
    [`${P}.properties[spec].properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`]],
  ['properties and additionalProperties', spec({ p: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } }),
    [`${P}.properties[spec].properties[p].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`]],
  ['metadata beyond name', { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } },
    [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`]],
  ['metadata name is allowed', { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } }, []],
  ['list-type map without keys', spec({ l: { type: 'array', items: { type: 'object' }, 'x-kubernetes-list-type': 'map' } }),
    [`${P}.properties[spec].properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`]],
  ['unknown list type', spec({ l: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' } }),
    [`${P}.properties[spec].properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`]],
  ['a default that does not validate', spec({ n: { type: 'integer', default: 'one' } }),
    [`${P}.properties[spec].properties[n].default: Invalid value: "string": in body must be of type integer: "string"`]],
  ['a default with unknown fields', spec({ o: { type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } } }),
    [`${P}.properties[spec].properties[o].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields: b`]],
  ['int-or-string anyOf as kubebuilder writes it', spec({ p: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] } }), []],
  ['a default in a junctor', spec({ p: { type: 'string', allOf: [{ default: 'x' }] } }),
    [`${P}.properties[spec].properties[p].allOf[0].default: Forbidden: must be undefined to be structural`]],
];

t.test('structural schema checks', async (t) => {
  for (const [name, schema, want] of structural) t.same(checkSchema(schema, P).map(fieldErrorText), want, name);
});
