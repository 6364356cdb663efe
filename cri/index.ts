// The CRI runtime.v1 protocol (api.proto) and its typed client.
export { CRIClient, criServices, protoPath } from './client.js';
export type { CRIClientOptions, CRIMethod, CRIRuntime } from './client.js';
export { FakeRuntime } from './fake.js';
export type { FakeRuntimeOptions } from './fake.js';
export { CRIError, CRIStatus, isCRIError, isNotFound, isUnavailable, isDeadlineExceeded } from './errors.js';
export type { CRICodeName } from './errors.js';
export type * from './types.js';
