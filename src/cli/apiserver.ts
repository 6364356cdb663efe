// `capstan apiserver`: the API server alone, with Kubernetes' flag names where they exist.
import { parseDuration } from '../util/duration.js';
import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { openStore } from '../storage/index.js';
import { APIServer } from '../apiserver/server.js';
import { encryptionFlag } from './encryption-flag.js';
import { admissionFlags, admissionFlagSpecs } from './admission-flags.js';
import { DEFAULT_AUTHORIZATION_MODE } from '../apiserver/authz/modes.js';
import { ensureClusterPKI, writeAdminKubeconfig, writeComponentKubeconfig } from './pki-files.js';
import { apiServerLabView } from '../labview/index.js';
import { untilSignal } from './signals.js';
import { authenticationFlags, authenticationOptions } from './authn-flags.js';
import { traceFlags, traceOptions } from './trace-flags.js';
import { http2Flags, http2Options } from './http2-flags.js';

export const apiserverFlags = {
  'data-dir': { type: 'string', default: '.capstan' },
  store: { type: 'string' },
  'bind-address': { type: 'string', default: '127.0.0.1' },
  'secure-port': { type: 'string', default: '6443' },
  'advertise-address': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'tls-cert-file': { type: 'string' },
  'tls-private-key-file': { type: 'string' },
  'client-ca-file': { type: 'string' },
  'kubelet-client-certificate': { type: 'string' },
  'kubelet-client-key': { type: 'string' },
  'service-cluster-ip-range': { type: 'string', default: '10.96.0.0/12' },
  'service-node-port-range': { type: 'string', default: '30000-32767' },
  ...admissionFlagSpecs,
  'authorization-mode': { type: 'string', default: DEFAULT_AUTHORIZATION_MODE },
  'metric-resolution': { type: 'string', default: '15s' },
  ...authenticationFlags,
  'encryption-provider-config': { type: 'string' },
  ...traceFlags,
  ...http2Flags,
} as const;

export async function run(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: apiserverFlags, strict: true });
  const dataDir = resolve(values['data-dir']);
  const bind = values['bind-address'];
  const advertise = values['advertise-address'] ?? (bind === '0.0.0.0' ? '127.0.0.1' : bind);
  let tls;
  let pki: ReturnType<typeof ensureClusterPKI> | undefined;
  if (values['tls-cert-file'] && values['tls-private-key-file'] && values['client-ca-file']) {
    tls = { certPem: readFileSync(values['tls-cert-file'], 'utf8'), keyPem: readFileSync(values['tls-private-key-file'], 'utf8'), caPem: readFileSync(values['client-ca-file'], 'utf8') };
  } else {
    pki = ensureClusterPKI(dataDir, [advertise, bind].filter((a) => a !== '0.0.0.0'), values['service-cluster-ip-range']);
    tls = { certPem: pki.serving.certPem, keyPem: pki.serving.keyPem, caPem: pki.ca.certPem };
  }
  const kubeletClient = values['kubelet-client-certificate'] && values['kubelet-client-key']
    ? { certPem: readFileSync(values['kubelet-client-certificate'], 'utf8'), keyPem: readFileSync(values['kubelet-client-key'], 'utf8') }
    : pki?.kubeletClient;
  const encryption = encryptionFlag('capstan apiserver', values['encryption-provider-config']);
  const admission = admissionFlags('capstan apiserver', values);
  const store = await openStore(values.store ?? `sqlite://${resolve(dataDir, 'state.db')}`);
  const server = new APIServer({
    store, tls, kubeletClient, bindAddress: bind, port: Number(values['secure-port']), advertiseAddress: advertise,
    disableAdmissionPlugins: admission.disable, enableAdmissionPlugins: admission.enable, defaultTolerationSeconds: admission.tolerationSeconds,
    tokenFile: values['token-auth-file'], authorizationMode: values['authorization-mode'], ...authenticationOptions(values, dataDir), encryption,
    metricResolutionMs: parseDuration(values['metric-resolution']),
    trace: traceOptions(values), ...http2Options(values),
    serviceClusterIPRange: values['service-cluster-ip-range'], serviceNodePortRange: values['service-node-port-range'],
  });
  const { port } = await server.start();
  server.addPathHandler(apiServerLabView(server));
  if (pki) {
    // The credentials the other components and kubectl use, next to the cluster's data.
    const url = `https://${advertise}:${port}`;
    writeAdminKubeconfig(dataDir, pki, url);
    writeComponentKubeconfig(dataDir, pki, url, 'controller-manager');
    writeComponentKubeconfig(dataDir, pki, url, 'scheduler');
  }
  process.stdout.write(`capstan apiserver ready on https://${advertise}:${port}\n`);
  await untilSignal();
  await server.stop();
  await store.close();
  return 0;
}
