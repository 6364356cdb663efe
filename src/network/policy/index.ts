// NetworkPolicy on this node: the model (pure), its nftables table, the enforcer that keeps
// the kernel equal to it, and the explanation of a flow.
export { computeModel, policyKey, policyTypes, podAddress, subtractBlocks, type PolicyInput, type PolicyModel, type LocalPod, type Protocol, type Direction, type RuleMatch } from './model.js';
export { IncrementalModel, type ModelChanges } from './incremental.js';
export { desiredPolicy, updateDesired, POLICY_TABLE, type DesiredPolicy } from './ruleset.js';
export { changeOps, collectOps, policyOps, type RetireMode } from './diff.js';
export { canonicalTable } from './canonical.js';
export { explainFlow, adminRuleMatches, type Explanation, type DirectionVerdict, type AdminDecision } from './explain.js';
export { COLLECT_AFTER_MS, PolicyEnforcer, policyTable, type PolicyCounts, type SyncResult, type EnforcerInput } from './enforcer.js';
export { computeAdminModel, adminOrder, type AdminModel, type AdminInput, type AdminRuleMatch, type AdminTier } from './admin.js';
export { adminDesired, updateAdminDesired, withAdmin, adminChainName } from './admin-ruleset.js';
