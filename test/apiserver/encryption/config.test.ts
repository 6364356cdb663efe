// The EncryptionConfiguration file: what parses, and that every bad file is refused with the
// field that is wrong, in upstream's words (k8s.io/apiserver validation_encryption.go).
import t from 'tap';
import { parseEncryptionConfiguration, EncryptionConfigError } from '../../../src/apiserver/encryption/config.js';
import { ResourceTransformers } from '../../../src/apiserver/encryption/index.js';

const k16 = Buffer.alloc(16, 1).toString('base64');
const k32 = Buffer.alloc(32, 2).toString('base64');
const head = 'apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\n';

t.test('a YAML file with every provider parses, in order, with decoded keys', async (t) => {
  const c = parseEncryptionConfiguration(`${head}resources:
  - resources: [secrets, deployments.apps]
    providers:
      - aesgcm: {keys: [{name: g1, secret: ${k16}}]}
      - aescbc:
          keys:
            - name: key1
              secret: ${k32}
            - name: key2
              secret: ${k16}
      - secretbox: {keys: [{name: s, secret: ${k32}}]}
      - identity: {}
  - resources: ['*.']
    providers: [{identity: {}}]
`);
  t.same(c.rules[0].resources, [{ group: '', resource: 'secrets' }, { group: 'apps', resource: 'deployments' }]);
  t.same(c.rules[0].providers.map((p) => p.type), ['aesgcm', 'aescbc', 'secretbox', 'identity']);
  const cbc = c.rules[0].providers[1];
  t.same(cbc.type === 'aescbc' && cbc.keys.map((k) => [k.name, k.secret.length]), [['key1', 32], ['key2', 16]]);
  t.same(c.rules[1].resources, [{ group: '', resource: '*' }]);
});

t.test('JSON and the older kind name EncryptionConfig are accepted', async (t) => {
  const json = JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'EncryptionConfig', resources: [{ resources: ['secrets'], providers: [{ secretbox: { keys: [{ name: 'a', secret: k32 }] } }] }] });
  t.equal(parseEncryptionConfiguration(json).rules[0].providers[0].type, 'secretbox');
});

t.test('resources pick their rule: exact, then *.group, then *.*; none is plain', async (t) => {
  const c = parseEncryptionConfiguration(`${head}resources:
  - resources: [secrets]
    providers: [{aescbc: {keys: [{name: a, secret: ${k32}}]}}]
  - resources: ['*.apps']
    providers: [{aesgcm: {keys: [{name: b, secret: ${k32}}]}}]
`);
  const tr = new ResourceTransformers(c);
  const prefixOf = (group: string, resource: string) => tr.for({ group, resource })?.toStorage(Buffer.from('{}'), '/k').toString('latin1').slice(0, 22);
  t.match(prefixOf('', 'secrets'), /^k8s:enc:aescbc:v1:a:/);
  t.match(prefixOf('apps', 'deployments'), /^k8s:enc:aesgcm:v1:b:/);
  t.equal(tr.for({ group: '', resource: 'configmaps' }), undefined);
});

const bad: [string, string, RegExp][] = [
  ['wrong kind', 'apiVersion: apiserver.config.k8s.io/v1\nkind: Pod\nresources: []', /no kind "Pod" is registered for version "apiserver.config.k8s.io\/v1"/],
  ['wrong apiVersion', 'apiVersion: v1\nkind: EncryptionConfiguration\n', /no kind "EncryptionConfiguration" is registered for version "v1"/],
  ['not YAML', '{resources: [', /error decoding encryption provider configuration file/],
  ['unknown field', `${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: a, secret: ${k32}, extra: 1}]}}]}]`, /strict decoding error: unknown field "resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.extra"/],
  ['unknown provider', `${head}resources: [{resources: [secrets], providers: [{aesctr: {}}]}]`, /unknown field "resources\[0\]\.providers\[0\]\.aesctr"/],
  ['no resources', `${head}resources: []`, /resources: Required value: at least one resources is required/],
  ['empty rule', `${head}resources: [{}]`, /resources\[0\]\.resources: Required value: at least one resources\[0\]\.resources is required, resources\[0\]\.providers: Required value/],
  ['aescbc key of 8 bytes', `${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: a, secret: ${Buffer.alloc(8).toString('base64')}}]}}]}]`,
    /resources\[0\]\.providers\[0\]\.aescbc\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 8, expected one of \[16 24 32\]/],
  ['secretbox key of 16 bytes', `${head}resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: a, secret: ${k16}}]}}]}]`,
    /resources\[0\]\.providers\[0\]\.secretbox\.keys\[0\]\.secret: Invalid value: "REDACTED": secret is not of the expected length, got 16, expected one of \[32\]/],
  ['key not base64', `${head}resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: a, secret: 'not base64!'}]}}]}]`,
    /resources\[0\]\.providers\[0\]\.aesgcm\.keys\[0\]\.secret: Invalid value: "REDACTED": secrets must be base64 encoded/],
  ['key without a name', `${head}resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{secret: ${k32}}]}}]}]`, /aesgcm\.keys\[0\]\.name: Required value: name is a mandatory field for a key/],
  ['key without a secret', `${head}resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: a}]}}]}]`, /aesgcm\.keys\[0\]\.secret: Required value: secret is a mandatory field for a key/],
  ['no keys', `${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: []}}]}]`, /aescbc\.keys: Required value: at least one keys is required/],
  ['two key names alike', `${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: a, secret: ${k32}}, {name: a, secret: ${k16}}]}}]}]`, /aescbc\.keys\[1\]\.name: Duplicate value: "a"/],
  ['two providers in one element', `${head}resources: [{resources: [secrets], providers: [{identity: {}, aescbc: {keys: [{name: a, secret: ${k32}}]}}]}]`, /providers\[0\]: Invalid value: .*more than one provider specified in a single element/],
  ['empty provider', `${head}resources: [{resources: [secrets], providers: [{}]}]`, /providers\[0\]: Invalid value: \{\}: provider does not contain any of the expected providers/],
  ['kms', `${head}resources: [{resources: [secrets], providers: [{kms: {apiVersion: v2, name: p, endpoint: 'unix:///kms.sock'}}]}]`, /resources\[0\]\.providers\[0\]\.kms: Forbidden: KMS providers are not supported by capstan/],
  ['capital letters', `${head}resources: [{resources: [Secrets], providers: [{identity: {}}]}]`, /resources\[0\]\.resources\[0\]: Invalid value: "Secrets": resource name should not contain capital letters/],
  ['a bare *', `${head}resources: [{resources: ['*'], providers: [{identity: {}}]}]`, /use '\*\.' to encrypt all the resources from core API group/],
  ['events.k8s.io', `${head}resources: [{resources: [events.events.k8s.io], providers: [{identity: {}}]}]`, /stored using the 'events' API group/],
  ['a resource twice', `${head}resources: [{resources: [secrets, secrets], providers: [{identity: {}}]}]`, /the same resource cannot be specified multiple times/],
  ['overlap in one list', `${head}resources: [{resources: [secrets, '*.'], providers: [{identity: {}}]}]`, /using overlapping resources such as 'secrets' and '\*\.'/],
  ['masked by an earlier rule', `${head}resources: [{resources: ['*.'], providers: [{identity: {}}]}, {resources: [secrets], providers: [{identity: {}}]}]`, /resource "secrets" is masked by earlier rule "\*\."/],
  ['keys of the wrong type', `${head}resources: [{resources: [secrets], providers: [{aescbc: {keys: true}}]}]`, /resources\[0\]\.providers\[0\]\.aescbc\.keys: cannot unmarshal boolean into a list/],
];

for (const [name, text, message] of bad) {
  t.test(`refused: ${name}`, async (t) => {
    t.throws(() => parseEncryptionConfiguration(text, '/etc/enc.yaml'), EncryptionConfigError);
    try { parseEncryptionConfiguration(text, '/etc/enc.yaml'); } catch (e) { t.match((e as Error).message, message); }
  });
}
