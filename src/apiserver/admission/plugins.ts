// Which admission plugins run, and in what order: kube-apiserver's plugin table
// (pkg/kubeapiserver/options/plugins.go, v1.32), its default-on set, and the
// --enable-admission-plugins / --disable-admission-plugins flags read as upstream reads them.
import { AdmissionChain, type AdmissionPlugin } from '../admission.js';

/** Every plugin kube-apiserver knows, in the order it runs them. */
export const ORDERED_PLUGINS = [
  'AlwaysAdmit', 'NamespaceAutoProvision', 'NamespaceLifecycle', 'NamespaceExists',
  'LimitPodHardAntiAffinityTopology', 'LimitRanger', 'ServiceAccount', 'NodeRestriction',
  'TaintNodesByCondition', 'AlwaysPullImages', 'ImagePolicyWebhook', 'PodSecurity',
  'PodNodeSelector', 'Priority', 'DefaultTolerationSeconds', 'PodTolerationRestriction',
  'EventRateLimit', 'ExtendedResourceToleration', 'DefaultStorageClass',
  'StorageObjectInUseProtection', 'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
  'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass',
  'DenyServiceExternalIPs', 'MutatingAdmissionPolicy', 'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy', 'ValidatingAdmissionWebhook', 'ResourceQuota', 'AlwaysDeny',
] as const;

/**
 * On unless disabled: upstream's default-on set, plus NodeRestriction, which capstan's
 * clusters always want beside the Node authorizer (kubeadm enables it the same way).
 */
export const DEFAULT_ON_PLUGINS: ReadonlySet<string> = new Set([
  'NamespaceLifecycle', 'LimitRanger', 'ServiceAccount', 'DefaultStorageClass',
  'PersistentVolumeClaimResize', 'DefaultTolerationSeconds', 'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook', 'ResourceQuota', 'StorageObjectInUseProtection', 'Priority',
  'TaintNodesByCondition', 'RuntimeClass', 'CertificateApproval', 'CertificateSigning',
  'ClusterTrustBundleAttest', 'CertificateSubjectRestriction', 'DefaultIngressClass',
  'PodSecurity', 'ValidatingAdmissionPolicy', 'NodeRestriction',
]);

export interface AdmissionFlags {
  /** --enable-admission-plugins: on besides the default ones. */
  enable?: string[];
  /** --disable-admission-plugins: off, even when default-on. */
  disable?: string[];
}

const known: ReadonlySet<string> = new Set(ORDERED_PLUGINS);

/** Upstream's start-up checks of the two flags: every name must be a known plugin. */
export function admissionFlagErrors(flags: AdmissionFlags, built: ReadonlySet<string>): string[] {
  const errs: string[] = [];
  for (const name of flags.enable ?? []) {
    if (!known.has(name)) errs.push(`enable-admission-plugins plugin "${name}" is unknown`);
    else if (!built.has(name)) errs.push(`enable-admission-plugins plugin "${name}" is not built into capstan`);
  }
  for (const name of flags.disable ?? []) {
    if (!known.has(name)) errs.push(`disable-admission-plugins plugin "${name}" is unknown`);
  }
  return errs;
}

/** Names of the plugins that will run, in upstream's order. A name in both flags is on, as upstream. */
export function enabledPlugins(flags: AdmissionFlags): string[] {
  const enable = new Set(flags.enable ?? []);
  const disable = new Set(flags.disable ?? []);
  return ORDERED_PLUGINS.filter((n) => enable.has(n) || (DEFAULT_ON_PLUGINS.has(n) && !disable.has(n)));
}

/**
 * The chain of the built plugins the flags leave on, in upstream's order. Throws with every
 * bad name when a flag names a plugin kube-apiserver does not know.
 */
export function admissionChain(built: AdmissionPlugin[], flags: AdmissionFlags = {}): AdmissionChain {
  const byName = new Map(built.map((p) => [p.name, p]));
  const errs = admissionFlagErrors(flags, new Set(byName.keys()));
  if (errs.length) throw new Error(errs.join(', '));
  const order = enabledPlugins(flags);
  return new AdmissionChain(order.flatMap((n) => byName.get(n) ?? []));
}

/** Parses a comma-separated flag value. */
export function pluginList(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}
