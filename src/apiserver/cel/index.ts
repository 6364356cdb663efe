// CEL for the API server: one environment with the Kubernetes libraries, compiled programs
// cached by expression, bounded evaluation. Used by ValidatingAdmissionPolicy, webhook
// matchConditions and CRD x-kubernetes-validations.
export { compile, CompileError, type Program } from './compile.js';
export { evaluate, evaluateSync, EvalError, DEFAULT_COST_LIMIT, type EvalOptions } from './evaluate.js';
export { toCel, fromCel, typeName, type ValueSchema } from './values.js';
export { AuthzSession, authorizerValue, type AuthzQuestion, type AuthzAnswer, type AuthzDecide, type RequestResource } from './library/authz.js';
export { COST_EXCEEDED } from './cost.js';
export { optionalOf } from './library/optional.js';
export { estimateCost, costErrorMessage, maxSize, type SizedSchema } from './estimate.js';
export { typeCheck, typeOf, formatIssues, DYN, type CelType, type TypeIssue } from './typecheck.js';
