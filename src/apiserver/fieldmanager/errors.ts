import { displayPath, type Path } from './path-element.js';

/**
 * An applied configuration the field manager cannot interpret (not an object, list-map items
 * without keys, duplicate keys). The server answers 400 BadRequest.
 */
export class FieldManagerError extends Error {
  override readonly name = 'FieldManagerError';
  readonly code = 400;
  readonly reason = 'BadRequest';
}

/** Who owns a conflicting field, as recorded in its managedFields entry. */
export interface ConflictOwner {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  subresource?: string;
}

export interface ApplyConflict extends ConflictOwner {
  /** The field as Kubernetes prints it: `.spec.replicas`, `.spec.containers[name="web"].image`. */
  field: string;
}

/** `"kubectl-client-side-apply" using apps/v1`, as Kubernetes names a manager in conflicts. */
export function describeOwner(owner: ConflictOwner): string {
  let s = JSON.stringify(owner.manager);
  if (owner.subresource) s += ` with subresource ${JSON.stringify(owner.subresource)}`;
  if (owner.operation === 'Update') s += ` using ${owner.apiVersion}`;
  return s;
}

/**
 * Apply without force touched fields other managers own. The server answers 409 Conflict
 * with this message and `details.causes = causes()`.
 */
export class ApplyConflictError extends Error {
  override readonly name = 'ApplyConflictError';
  readonly code = 409;
  readonly reason = 'Conflict';

  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictMessage(conflicts));
  }

  causes(): { reason: 'FieldManagerConflict'; message: string; field: string }[] {
    return this.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${describeOwner(c)}`, field: c.field }));
  }
}

export function conflictFor(owner: ConflictOwner, path: Path): ApplyConflict {
  const { manager, operation, apiVersion, subresource } = owner;
  return { manager, operation, apiVersion, ...(subresource ? { subresource } : {}), field: displayPath(path) };
}

function conflictMessage(conflicts: ApplyConflict[]): string {
  if (conflicts.length === 1) {
    const [c] = conflicts as [ApplyConflict];
    return `Apply failed with 1 conflict: conflict with ${describeOwner(c)}: ${c.field}`;
  }
  const byOwner = new Map<string, string[]>();
  for (const c of conflicts) {
    const owner = describeOwner(c);
    byOwner.set(owner, [...(byOwner.get(owner) ?? []), c.field]);
  }
  const lines: string[] = [];
  for (const owner of [...byOwner.keys()].sort()) {
    lines.push(`conflict with ${owner}:`, ...byOwner.get(owner)!.map((f) => `- ${f}`));
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}
