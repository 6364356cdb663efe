// Table output (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), which kubectl get
// prints. Columns come from the resource; NAME leads and AGE closes when a resource has none.
import type { Fields, KubeObject } from '../api/object.js';
import type { GenericRegistry } from './registry/index.js';
import { ageColumn } from './registry/common.js';
import type { TableColumn, VersionDef } from './registry/types.js';

function columnsOf(reg: GenericRegistry, version?: VersionDef): TableColumn[] {
  const cols = version?.columns ?? reg.def.columns ?? [ageColumn];
  return [{ name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', priority: 0, cell: reg.def.nameCell ?? ((o) => o.metadata.name ?? '') }, ...cols];
}

export function partialObjectMetadata(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** A Table of internal objects; `versioned` renders the object when includeObject=Object. */
export function toTable(
  reg: GenericRegistry,
  objects: KubeObject[],
  meta: { resourceVersion?: string; continue?: string; remainingItemCount?: number },
  include: IncludeObject,
  versioned: (o: KubeObject) => KubeObject,
  now = new Date(),
  version?: VersionDef,
): KubeObject {
  const cols = columnsOf(reg, version);
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: c.description, priority: c.priority })),
    rows: objects.map((o) => {
      const row: Fields = { cells: cols.map((c) => c.cell(o, now)) };
      if (include === 'Metadata') row.object = partialObjectMetadata(versioned(o));
      else if (include === 'Object') row.object = versioned(o);
      return row;
    }),
  };
}
