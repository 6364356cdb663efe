// The Pod Security Standards checks: each level's violations in upstream's order and words,
// and how the namespace labels choose a level.
import t from 'tap';
import { describe, violations } from '../../../src/apiserver/admission/podsecurity/checks.js';
import { levelFor } from '../../../src/apiserver/admission/podsecurity/index.js';

const container = (name: string, securityContext?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, image: 'busybox', ...(securityContext ? { securityContext } : {}), ...extra });
const compliant = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };

t.test('a plain pod passes baseline and fails restricted with upstream\'s four reasons', async (t) => {
  const spec = { containers: [container('nginx')] };
  t.strictSame(violations('baseline', spec), []);
  t.equal(describe(violations('restricted', spec)),
    'allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), '
    + 'unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), '
    + 'runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), '
    + 'seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")');
  t.strictSame(violations('privileged', { hostNetwork: true, containers: [container('x', { privileged: true })] }), []);
});

t.test('a compliant pod passes restricted; pod-level settings cover its containers', async (t) => {
  t.strictSame(violations('restricted', { containers: [container('a', compliant)] }), []);
  const spec = {
    securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } },
    containers: [container('a', { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } })],
  };
  t.strictSame(violations('restricted', spec), []);
});

t.test('baseline checks, in upstream\'s order, with plurals', async (t) => {
  const spec = {
    hostNetwork: true, hostPID: true,
    volumes: [{ name: 'root', hostPath: { path: '/' } }, { name: 'etc', hostPath: { path: '/etc' } }],
    securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }] },
    containers: [
      container('a', { privileged: true, capabilities: { add: ['NET_ADMIN', 'CHOWN'] } }, { ports: [{ containerPort: 80, hostPort: 80 }] }),
      container('b', { privileged: true, procMount: 'Unmasked', seccompProfile: { type: 'Unconfined' } }, { ports: [{ containerPort: 443, hostPort: 8443 }] }),
    ],
  };
  t.equal(describe(violations('baseline', spec)), [
    'non-default capabilities (container "a" must not include "NET_ADMIN" in securityContext.capabilities.add)',
    'host namespaces (hostNetwork=true, hostPID=true)',
    'hostPath volumes (volumes "root", "etc")',
    'hostPort (containers "a", "b" use hostPorts 80, 8443)',
    'privileged (containers "a", "b" must not set securityContext.privileged=true)',
    'procMount (container "b" must not set securityContext.procMount to "Unmasked")',
    'seccompProfile (container "b" must not set securityContext.seccompProfile.type to "Unconfined")',
    'forbidden sysctls (kernel.msgmax)',
  ].join(', '));
});

t.test('restricted: the stricter capabilities and seccomp checks replace the baseline ones', async (t) => {
  const spec = {
    securityContext: { runAsNonRoot: false, runAsUser: 0, seccompProfile: { type: 'Unconfined' } },
    volumes: [{ name: 'n', nfs: { server: 'x', path: '/' } }],
    containers: [container('a', { ...compliant, runAsNonRoot: undefined, seccompProfile: undefined, capabilities: { drop: ['ALL'], add: ['SYS_ADMIN'] } })],
  };
  const found = violations('restricted', spec);
  t.strictSame(found.map((v) => v.reason), ['unrestricted capabilities', 'restricted volume types', 'runAsNonRoot != true', 'runAsUser=0', 'seccompProfile']);
  t.equal(found[0].detail, 'container "a" must not include "SYS_ADMIN" in securityContext.capabilities.add');
  t.equal(found[1].detail, 'volume "n" uses restricted volume type "nfs"');
  t.equal(found[2].detail, 'pod must not set securityContext.runAsNonRoot=false; pod or container "a" must set securityContext.runAsNonRoot=true');
  t.equal(found[3].detail, 'pod must not set runAsUser=0');
  t.equal(found[4].detail, 'pod must not set securityContext.seccompProfile.type to "Unconfined"; pod or container "a" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"');
});

t.test('the namespace labels choose the level; a bad one is restricted', async (t) => {
  const p = 'pod-security.kubernetes.io/';
  t.strictSame(levelFor({}, 'enforce'), { level: 'privileged', version: 'latest' });
  t.strictSame(levelFor({ [`${p}enforce`]: 'baseline', [`${p}enforce-version`]: 'v1.30' }, 'enforce'), { level: 'baseline', version: 'v1.30' });
  t.strictSame(levelFor({ [`${p}warn`]: 'restricted' }, 'warn'), { level: 'restricted', version: 'latest' });
  t.strictSame(levelFor({ [`${p}enforce`]: 'strict' }, 'enforce'), { level: 'restricted', version: 'latest' });
  t.strictSame(levelFor({ [`${p}enforce`]: 'baseline', [`${p}enforce-version`]: '1.30' }, 'enforce'), { level: 'restricted', version: 'latest' });
});

t.test('baseline: SELinux options and AppArmor profiles', async (t) => {
  const spec = {
    securityContext: { seLinuxOptions: { type: 'spc_t' }, appArmorProfile: { type: 'Unconfined' } },
    containers: [container('a', { seLinuxOptions: { user: 'root', type: 'container_t' } }), container('b', { seLinuxOptions: { type: 'container_init_t' } })],
  };
  const meta = { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined', 'container.apparmor.security.beta.kubernetes.io/b': 'runtime/default' } };
  const found = violations('baseline', spec, meta);
  t.strictSame(found.map((v) => v.reason), ['forbidden AppArmor profiles', 'seLinuxOptions']);
  t.equal(found[0].detail, 'pod and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/a=\\"unconfined\\""');
  t.equal(found[1].detail, 'pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set');
  t.strictSame(violations('baseline', { securityContext: { seLinuxOptions: { type: 'container_t', level: 's0:c1' }, appArmorProfile: { type: 'RuntimeDefault' } }, containers: [container('a')] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'localhost/p' } }), []);
});
