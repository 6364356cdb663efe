// Which plugins run and in what order: kube-apiserver's order whatever the order they are
// built or named in, its default-on set, and the flags' checks.
import t from 'tap';
import { admissionChain, admissionFlagErrors, enabledPlugins, ORDERED_PLUGINS } from '../../../src/apiserver/admission/plugins.js';
import type { AdmissionPlugin } from '../../../src/apiserver/admission.js';

const built = (...names: string[]): AdmissionPlugin[] => names.map((name) => ({ name }));

t.test('the default chain is upstream\'s default-on plugins in upstream\'s order', async (t) => {
  const chain = admissionChain(built('ResourceQuota', 'Priority', 'ServiceAccount', 'NamespaceLifecycle', 'PodSecurity', 'LimitRanger', 'DefaultTolerationSeconds', 'NodeRestriction'));
  t.strictSame(chain.plugins.map((p) => p.name), ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'NodeRestriction', 'PodSecurity', 'Priority', 'DefaultTolerationSeconds', 'ResourceQuota']);
});

t.test('--disable takes a plugin out, --enable adds a default-off one in its place, flag order does not matter', async (t) => {
  const names = built('NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'Priority', 'AlwaysDeny');
  t.strictSame(admissionChain(names, { disable: ['Priority', 'LimitRanger'] }).plugins.map((p) => p.name), ['NamespaceLifecycle', 'ServiceAccount']);
  t.strictSame(admissionChain(names, { enable: ['AlwaysDeny', 'NamespaceLifecycle'] }).plugins.map((p) => p.name), ['NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'Priority', 'AlwaysDeny']);
  t.strictSame(enabledPlugins({ enable: ['Priority'], disable: ['Priority'] }).includes('Priority'), true, 'named in both: on, as upstream');
  t.notOk(enabledPlugins({}).includes('AlwaysPullImages'));
  t.equal(ORDERED_PLUGINS.at(-1), 'AlwaysDeny');
});

t.test('unknown names are refused with upstream\'s words; a known plugin capstan lacks cannot be enabled', async (t) => {
  t.strictSame(admissionFlagErrors({ enable: ['Foo'], disable: ['Bar', 'LimitRanger'] }, new Set()), [
    'enable-admission-plugins plugin "Foo" is unknown',
    'disable-admission-plugins plugin "Bar" is unknown',
  ]);
  t.throws(() => admissionChain(built('LimitRanger'), { enable: ['AlwaysPullImages'] }), /enable-admission-plugins plugin "AlwaysPullImages" is not built into capstan/);
  t.doesNotThrow(() => admissionChain(built('LimitRanger'), { disable: ['DefaultStorageClass'] }), 'disabling a default one capstan lacks is fine');
});
