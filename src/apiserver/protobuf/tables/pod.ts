// k8s.io/api core/v1: pods, containers, volumes (affinity.ts has PodSpec.affinity). The cloud
// and legacy volume sources are not tabled; their fields are skipped like any unknown field.
import { msg, type Messages } from '../schema.js';

const podSpec = msg({
  1: ['volumes', '[]Volume'], 20: ['initContainers', '[]Container'], 2: ['containers', '[]Container'],
  3: ['restartPolicy', 'string'], 4: ['terminationGracePeriodSeconds', '*int64'], 5: ['activeDeadlineSeconds', '*int64'],
  6: ['dnsPolicy', 'string'], 7: ['nodeSelector', 'map<string>'], 8: ['serviceAccountName', 'string'], 9: ['serviceAccount', 'string'],
  21: ['automountServiceAccountToken', '*bool'], 10: ['nodeName', 'string'], 11: ['hostNetwork', 'bool'], 12: ['hostPID', 'bool'],
  13: ['hostIPC', 'bool'], 27: ['shareProcessNamespace', '*bool'], 14: ['securityContext', '*PodSecurityContext'],
  15: ['imagePullSecrets', '[]LocalObjectReference'], 16: ['hostname', 'string'], 17: ['subdomain', 'string'],
  18: ['affinity', '*Affinity'], 19: ['schedulerName', 'string'], 22: ['tolerations', '[]Toleration'], 23: ['hostAliases', '[]HostAlias'],
  24: ['priorityClassName', 'string'], 25: ['priority', '*int32'], 26: ['dnsConfig', '*PodDNSConfig'],
  28: ['readinessGates', '[]PodReadinessGate'], 29: ['runtimeClassName', '*string'], 30: ['enableServiceLinks', '*bool'],
  31: ['preemptionPolicy', '*string'], 32: ['overhead', 'map<Quantity>'], 33: ['topologySpreadConstraints', '[]TopologySpreadConstraint'],
  35: ['setHostnameAsFQDN', '*bool'], 36: ['os', '*PodOS'], 37: ['hostUsers', '*bool'], 38: ['schedulingGates', '[]PodSchedulingGate'],
  40: ['resources', '*ResourceRequirements'], 41: ['hostnameOverride', '*string'],
});

const container = msg({
  1: ['name', 'string!'], 2: ['image', 'string'], 3: ['command', '[]string'], 4: ['args', '[]string'], 5: ['workingDir', 'string'],
  6: ['ports', '[]ContainerPort'], 19: ['envFrom', '[]EnvFromSource'], 7: ['env', '[]EnvVar'], 8: ['resources', 'ResourceRequirements'],
  23: ['resizePolicy', '[]ContainerResizePolicy'], 24: ['restartPolicy', '*string'], 9: ['volumeMounts', '[]VolumeMount'],
  21: ['volumeDevices', '[]VolumeDevice'], 10: ['livenessProbe', '*Probe'], 11: ['readinessProbe', '*Probe'], 22: ['startupProbe', '*Probe'],
  12: ['lifecycle', '*Lifecycle'], 13: ['terminationMessagePath', 'string'], 20: ['terminationMessagePolicy', 'string'],
  14: ['imagePullPolicy', 'string'], 15: ['securityContext', '*SecurityContext'], 16: ['stdin', 'bool'], 17: ['stdinOnce', 'bool'], 18: ['tty', 'bool'],
});

const handler = { 1: ['exec', '*ExecAction'], 2: ['httpGet', '*HTTPGetAction'], 3: ['tcpSocket', '*TCPSocketAction'] } as const;

export const pod: Messages = {
  Pod: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'], 3: ['status', 'PodStatus'] }),
  PodTemplateSpec: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'PodSpec'] }),
  PodSpec: podSpec,
  // What a client sends in status is ignored on create; only the scalars are read.
  PodStatus: msg({
    1: ['phase', 'string'], 3: ['message', 'string'], 4: ['reason', 'string'], 11: ['nominatedNodeName', 'string'], 5: ['hostIP', 'string'],
    6: ['podIP', 'string'], 7: ['startTime', '*Time'], 9: ['qosClass', 'string'],
  }),
  PodOS: msg({ 1: ['name', 'string!'] }),
  PodSchedulingGate: msg({ 1: ['name', 'string!'] }),
  PodReadinessGate: msg({ 1: ['conditionType', 'string!'] }),
  HostAlias: msg({ 1: ['ip', 'string!'], 2: ['hostnames', '[]string'] }),
  PodDNSConfig: msg({ 1: ['nameservers', '[]string'], 2: ['searches', '[]string'], 3: ['options', '[]PodDNSConfigOption'] }),
  PodDNSConfigOption: msg({ 1: ['name', 'string'], 2: ['value', '*string'] }),
  Toleration: msg({ 1: ['key', 'string'], 2: ['operator', 'string'], 3: ['value', 'string'], 4: ['effect', 'string'], 5: ['tolerationSeconds', '*int64'] }),
  TopologySpreadConstraint: msg({
    1: ['maxSkew', 'int32!'], 2: ['topologyKey', 'string!'], 3: ['whenUnsatisfiable', 'string!'], 4: ['labelSelector', '*LabelSelector'],
    5: ['minDomains', '*int32'], 6: ['nodeAffinityPolicy', '*string'], 7: ['nodeTaintsPolicy', '*string'], 8: ['matchLabelKeys', '[]string'],
  }),
  PodSecurityContext: msg({
    1: ['seLinuxOptions', '*SELinuxOptions'], 8: ['windowsOptions', '*WindowsSecurityContextOptions'], 2: ['runAsUser', '*int64'],
    6: ['runAsGroup', '*int64'], 3: ['runAsNonRoot', '*bool'], 4: ['supplementalGroups', '[]int64'], 12: ['supplementalGroupsPolicy', '*string'],
    5: ['fsGroup', '*int64'], 7: ['sysctls', '[]Sysctl'], 9: ['fsGroupChangePolicy', '*string'], 10: ['seccompProfile', '*SeccompProfile'],
    11: ['appArmorProfile', '*AppArmorProfile'], 13: ['seLinuxChangePolicy', '*string'],
  }),
  SecurityContext: msg({
    1: ['capabilities', '*Capabilities'], 2: ['privileged', '*bool'], 3: ['seLinuxOptions', '*SELinuxOptions'],
    10: ['windowsOptions', '*WindowsSecurityContextOptions'], 4: ['runAsUser', '*int64'], 8: ['runAsGroup', '*int64'], 5: ['runAsNonRoot', '*bool'],
    6: ['readOnlyRootFilesystem', '*bool'], 7: ['allowPrivilegeEscalation', '*bool'], 9: ['procMount', '*string'],
    11: ['seccompProfile', '*SeccompProfile'], 12: ['appArmorProfile', '*AppArmorProfile'],
  }),
  Capabilities: msg({ 1: ['add', '[]string'], 2: ['drop', '[]string'] }),
  SELinuxOptions: msg({ 1: ['user', 'string'], 2: ['role', 'string'], 3: ['type', 'string'], 4: ['level', 'string'] }),
  WindowsSecurityContextOptions: msg({
    1: ['gmsaCredentialSpecName', '*string'], 2: ['gmsaCredentialSpec', '*string'], 3: ['runAsUserName', '*string'], 4: ['hostProcess', '*bool'],
  }),
  SeccompProfile: msg({ 1: ['type', 'string!'], 2: ['localhostProfile', '*string'] }),
  AppArmorProfile: msg({ 1: ['type', 'string!'], 2: ['localhostProfile', '*string'] }),
  Sysctl: msg({ 1: ['name', 'string!'], 2: ['value', 'string!'] }),

  Container: container,
  ContainerPort: msg({ 1: ['name', 'string'], 2: ['hostPort', 'int32'], 3: ['containerPort', 'int32!'], 4: ['protocol', 'string'], 5: ['hostIP', 'string'] }),
  ContainerResizePolicy: msg({ 1: ['resourceName', 'string!'], 2: ['restartPolicy', 'string!'] }),
  EnvFromSource: msg({ 1: ['prefix', 'string'], 2: ['configMapRef', '*ConfigMapEnvSource'], 3: ['secretRef', '*SecretEnvSource'] }),
  ConfigMapEnvSource: msg({ 1: ['', '...LocalObjectReference'], 2: ['optional', '*bool'] }),
  SecretEnvSource: msg({ 1: ['', '...LocalObjectReference'], 2: ['optional', '*bool'] }),
  EnvVar: msg({ 1: ['name', 'string!'], 2: ['value', 'string'], 3: ['valueFrom', '*EnvVarSource'] }),
  EnvVarSource: msg({
    1: ['fieldRef', '*ObjectFieldSelector'], 2: ['resourceFieldRef', '*ResourceFieldSelector'], 3: ['configMapKeyRef', '*ConfigMapKeySelector'],
    4: ['secretKeyRef', '*SecretKeySelector'], 5: ['fileKeyRef', '*FileKeySelector'],
  }),
  ObjectFieldSelector: msg({ 1: ['apiVersion', 'string'], 2: ['fieldPath', 'string!'] }),
  ResourceFieldSelector: msg({ 1: ['containerName', 'string'], 2: ['resource', 'string!'], 3: ['divisor', 'Quantity'] }),
  ConfigMapKeySelector: msg({ 1: ['', '...LocalObjectReference'], 2: ['key', 'string!'], 3: ['optional', '*bool'] }),
  SecretKeySelector: msg({ 1: ['', '...LocalObjectReference'], 2: ['key', 'string!'], 3: ['optional', '*bool'] }),
  FileKeySelector: msg({ 1: ['volumeName', 'string!'], 2: ['path', 'string!'], 3: ['key', 'string!'], 4: ['optional', '*bool'] }),
  ResourceRequirements: msg({ 1: ['limits', 'map<Quantity>'], 2: ['requests', 'map<Quantity>'], 3: ['claims', '[]ResourceClaim'] }),
  ResourceClaim: msg({ 1: ['name', 'string!'], 2: ['request', 'string'] }),
  VolumeMount: msg({
    1: ['name', 'string!'], 2: ['readOnly', 'bool'], 7: ['recursiveReadOnly', '*string'], 3: ['mountPath', 'string!'], 4: ['subPath', 'string'],
    5: ['mountPropagation', '*string'], 6: ['subPathExpr', 'string'],
  }),
  VolumeDevice: msg({ 1: ['name', 'string!'], 2: ['devicePath', 'string!'] }),

  Probe: msg({
    1: ['', '...ProbeHandler'], 2: ['initialDelaySeconds', 'int32'], 3: ['timeoutSeconds', 'int32'], 4: ['periodSeconds', 'int32'],
    5: ['successThreshold', 'int32'], 6: ['failureThreshold', 'int32'], 7: ['terminationGracePeriodSeconds', '*int64'],
  }),
  ProbeHandler: msg({ ...handler, 4: ['grpc', '*GRPCAction'] }),
  Lifecycle: msg({ 1: ['postStart', '*LifecycleHandler'], 2: ['preStop', '*LifecycleHandler'], 3: ['stopSignal', '*string'] }),
  LifecycleHandler: msg({ ...handler, 4: ['sleep', '*SleepAction'] }),
  ExecAction: msg({ 1: ['command', '[]string'] }),
  HTTPGetAction: msg({
    1: ['path', 'string'], 2: ['port', 'IntOrString!'], 3: ['host', 'string'], 4: ['scheme', 'string'], 5: ['httpHeaders', '[]HTTPHeader'],
  }),
  HTTPHeader: msg({ 1: ['name', 'string!'], 2: ['value', 'string!'] }),
  TCPSocketAction: msg({ 1: ['port', 'IntOrString!'], 2: ['host', 'string'] }),
  GRPCAction: msg({ 1: ['port', 'int32!'], 2: ['service', '*string'] }),
  SleepAction: msg({ 1: ['seconds', 'int64!'] }),

  Volume: msg({ 1: ['name', 'string!'], 2: ['', '...VolumeSource'] }),
  VolumeSource: msg({
    1: ['hostPath', '*HostPathVolumeSource'], 2: ['emptyDir', '*EmptyDirVolumeSource'], 6: ['secret', '*SecretVolumeSource'],
    10: ['persistentVolumeClaim', '*PersistentVolumeClaimVolumeSource'], 16: ['downwardAPI', '*DownwardAPIVolumeSource'],
    19: ['configMap', '*ConfigMapVolumeSource'], 26: ['projected', '*ProjectedVolumeSource'],
  }),
  HostPathVolumeSource: msg({ 1: ['path', 'string!'], 2: ['type', '*string'] }),
  EmptyDirVolumeSource: msg({ 1: ['medium', 'string'], 2: ['sizeLimit', '*Quantity'] }),
  PersistentVolumeClaimVolumeSource: msg({ 1: ['claimName', 'string!'], 2: ['readOnly', 'bool'] }),
  SecretVolumeSource: msg({ 1: ['secretName', 'string'], 2: ['items', '[]KeyToPath'], 3: ['defaultMode', '*int32'], 4: ['optional', '*bool'] }),
  ConfigMapVolumeSource: msg({ 1: ['', '...LocalObjectReference'], 2: ['items', '[]KeyToPath'], 3: ['defaultMode', '*int32'], 4: ['optional', '*bool'] }),
  KeyToPath: msg({ 1: ['key', 'string!'], 2: ['path', 'string!'], 3: ['mode', '*int32'] }),
  DownwardAPIVolumeSource: msg({ 1: ['items', '[]DownwardAPIVolumeFile'], 2: ['defaultMode', '*int32'] }),
  DownwardAPIVolumeFile: msg({
    1: ['path', 'string!'], 2: ['fieldRef', '*ObjectFieldSelector'], 3: ['resourceFieldRef', '*ResourceFieldSelector'], 4: ['mode', '*int32'],
  }),
  ProjectedVolumeSource: msg({ 1: ['sources', '[]VolumeProjection'], 2: ['defaultMode', '*int32'] }),
  VolumeProjection: msg({
    1: ['secret', '*SecretProjection'], 2: ['downwardAPI', '*DownwardAPIProjection'], 3: ['configMap', '*ConfigMapProjection'],
    4: ['serviceAccountToken', '*ServiceAccountTokenProjection'],
  }),
  SecretProjection: msg({ 1: ['', '...LocalObjectReference'], 2: ['items', '[]KeyToPath'], 4: ['optional', '*bool'] }),
  ConfigMapProjection: msg({ 1: ['', '...LocalObjectReference'], 2: ['items', '[]KeyToPath'], 4: ['optional', '*bool'] }),
  DownwardAPIProjection: msg({ 1: ['items', '[]DownwardAPIVolumeFile'] }),
  ServiceAccountTokenProjection: msg({ 1: ['audience', 'string'], 2: ['expirationSeconds', '*int64'], 3: ['path', 'string!'] }),
};
