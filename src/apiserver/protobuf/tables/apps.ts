// k8s.io/api apps/v1.
import { msg, type Messages } from '../schema.js';

export const apps: Messages = {
  Deployment: msg({ 1: ['metadata', 'ObjectMeta'], 2: ['spec', 'DeploymentSpec'], 3: ['status', 'DeploymentStatus'] }),
  DeploymentSpec: msg({
    1: ['replicas', '*int32'], 2: ['selector', '*LabelSelector'], 3: ['template', 'PodTemplateSpec'], 4: ['strategy', 'DeploymentStrategy'],
    5: ['minReadySeconds', 'int32'], 6: ['revisionHistoryLimit', '*int32'], 7: ['paused', 'bool'], 9: ['progressDeadlineSeconds', '*int32'],
  }),
  DeploymentStrategy: msg({ 1: ['type', 'string'], 2: ['rollingUpdate', '*RollingUpdateDeployment'] }),
  RollingUpdateDeployment: msg({ 1: ['maxUnavailable', '*IntOrString'], 2: ['maxSurge', '*IntOrString'] }),
  DeploymentStatus: msg({
    1: ['observedGeneration', 'int64'], 2: ['replicas', 'int32'], 3: ['updatedReplicas', 'int32'], 7: ['readyReplicas', 'int32'],
    4: ['availableReplicas', 'int32'], 5: ['unavailableReplicas', 'int32'], 9: ['terminatingReplicas', '*int32'],
    6: ['conditions', '[]DeploymentCondition'], 8: ['collisionCount', '*int32'],
  }),
  DeploymentCondition: msg({
    1: ['type', 'string!'], 2: ['status', 'string!'], 6: ['lastUpdateTime', 'Time'], 7: ['lastTransitionTime', 'Time'],
    4: ['reason', 'string'], 5: ['message', 'string'],
  }),
};
