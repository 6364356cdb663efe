// The whole-schema cost limit of a CRD's x-kubernetes-validations: rules each within the
// per-rule budget but together above upstream's 100,000,000 are refused, naming the most
// expensive four and the schema, in upstream's words.
import t from 'tap';
import { schemaRuleErrors } from '../../../src/apiserver/crd/validation-rules.js';

const schema = (rules: number, maxLength: number) => ({
  type: 'object',
  properties: {
    items: {
      type: 'array', maxItems: 1000,
      items: {
        type: 'object',
        properties: { s: { type: 'string', maxLength } },
        'x-kubernetes-validations': Array.from({ length: rules }, (_, i) => ({ rule: `self.s.contains('${i}')` })),
      },
    },
  },
});

t.test('over the total: the four most expensive and the schema are Forbidden', async (t) => {
  const errs = schemaRuleErrors(schema(30, 50_000), 'spec.versions[0].schema.openAPIV3Schema');
  t.equal(errs.length, 5, JSON.stringify(errs));
  for (const e of errs.slice(0, 4)) {
    t.match(e, { type: 'FieldValueForbidden', field: /^spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[items\]\.items\.x-kubernetes-validations\[\d+\]\.rule$/, message: 'contributed to estimated rule & messageExpression cost total exceeding cost limit for entire OpenAPIv3 schema' });
  }
  t.match(errs[4], { type: 'FieldValueForbidden', field: 'spec.versions[0].schema.openAPIV3Schema', message: /^x-kubernetes-validations estimated rule & messageExpression cost total for entire OpenAPIv3 schema exceeds budget by factor of 1\.\d+x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/ });
});

t.test('within the total, or with tighter bounds: accepted', async (t) => {
  t.same(schemaRuleErrors(schema(10, 50_000), 'x'), []);
  t.same(schemaRuleErrors(schema(30, 1000), 'x'), []);
});
