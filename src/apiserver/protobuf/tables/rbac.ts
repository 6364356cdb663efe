// k8s.io/api rbac/v1.
import { msg, type Messages } from '../schema.js';

export const rbac: Messages = {
  Role: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['rules', '[]PolicyRule'] }),
  ClusterRole: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['rules', '[]PolicyRule'], 3: ['aggregationRule', '*AggregationRule'] }),
  RoleBinding: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['subjects', '[]Subject'], 3: ['roleRef', 'RoleRef'] }),
  ClusterRoleBinding: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['subjects', '[]Subject'], 3: ['roleRef', 'RoleRef'] }),
  PolicyRule: msg({
    1: ['verbs', '[]string'], 2: ['apiGroups', '[]string'], 3: ['resources', '[]string'], 4: ['resourceNames', '[]string'],
    5: ['nonResourceURLs', '[]string'],
  }),
  Subject: msg({ 1: ['kind', 'string!'], 2: ['apiGroup', 'string'], 3: ['name', 'string!'], 4: ['namespace', 'string'] }),
  RoleRef: msg({ 1: ['apiGroup', 'string!'], 2: ['kind', 'string!'], 3: ['name', 'string!'] }),
  AggregationRule: msg({ 1: ['clusterRoleSelectors', '[]LabelSelector'] }),
};
