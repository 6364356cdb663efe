// A toolkit for operators written in TypeScript, on capstan's client machinery (DESIGN.md).
export { connect, inClusterConnection, kubeconfigConnection, SERVICE_ACCOUNT_DIR, type Connection } from './config.js';
export { customResource, withTypeMeta } from './resource.js';
export { controllerReference, controllerOf, isControlledBy } from './owners.js';
export { setCondition, findCondition, isTrue, type Condition } from './conditions.js';
export { addFinalizer, removeFinalizer, hasFinalizer } from './finalizers.js';
export { OperatorController, type Reconciler, type ReconcileContext } from './controller.js';
export { Manager, type ManagerOptions, type LeaderElectionOptions } from './manager.js';
export type { ReconcileResult } from '../controllers/framework.js';
