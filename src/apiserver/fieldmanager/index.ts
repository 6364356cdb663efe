// Field ownership for writes: server-side apply and metadata.managedFields bookkeeping.
export { FieldManager, BEFORE_FIRST_APPLY, type WriteOptions, type ApplyOptions, type ApplyResult } from './field-manager.js';
export { ApplyConflictError, FieldManagerError, type ApplyConflict, type ConflictOwner } from './errors.js';
