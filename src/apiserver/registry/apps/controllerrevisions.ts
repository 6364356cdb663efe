// ControllerRevisions: immutable snapshots (data and revision never change after create).
import { isDeepStrictEqual } from 'node:util';
import type { KubeObject } from '../../../api/object.js';
import type { ResourceDef } from '../types.js';
import { ageColumn, col, identityVersion } from '../common.js';
import { invalidValue, required, validateNonNegative, type FieldError } from '../../../api/validation.js';

function validate(o: KubeObject): FieldError[] {
  const errs = validateNonNegative(o.revision, 'revision');
  if (o.data === undefined || o.data === null) errs.push(required('data', 'data is mandatory'));
  return errs;
}

function validateUpdate(o: KubeObject, old: KubeObject): FieldError[] {
  const errs: FieldError[] = [];
  if (!isDeepStrictEqual(o.data, old.data)) errs.push(invalidValue('data', '', 'field is immutable'));
  return errs;
}

function controllerOf(o: KubeObject): string {
  const ref = o.metadata.ownerReferences?.find((r) => r.controller === true);
  if (!ref) return '<none>';
  const group = String(ref.apiVersion ?? '').includes('/') ? String(ref.apiVersion).split('/')[0] : '';
  return `${ref.kind.toLowerCase()}${group ? `.${group}` : ''}/${ref.name}`;
}

export const controllerrevisions: ResourceDef = {
  group: 'apps', resource: 'controllerrevisions', singular: 'controllerrevision', kind: 'ControllerRevision', listKind: 'ControllerRevisionList', namespaced: true,
  versions: [identityVersion('v1', 'io.k8s.api.apps.v1.ControllerRevision')],
  storageVersion: 'v1',
  strategy: { validate, validateUpdate },
  columns: [
    col('Controller', 'Controller of the object.', controllerOf),
    col('Revision', 'Revision of the ControllerRevision.', (o) => o.revision ?? 0, 0, 'integer'),
    ageColumn,
  ],
};
