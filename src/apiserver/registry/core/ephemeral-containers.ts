// pods/ephemeralcontainers: the one way to add debugging containers to a running pod
// (kubectl debug). Only spec.ephemeralContainers changes through it, only by adding: an
// existing one may be neither changed nor removed. Validation as upstream's
// validateEphemeralContainers: a DNS label name unique among all the pod's containers, an
// image, a targetContainerName naming a container of the pod, and none of the fields an
// ephemeral container may not have (ports, probes, lifecycle, resources).
import { isDeepStrictEqual } from 'node:util';
import type { Fields, KubeObject } from '../../../api/object.js';
import { duplicate, forbiddenField, invalidValue, isDNS1123Label, notFoundField, required, type FieldError } from '../../../api/validation.js';
import type { Strategy } from '../types.js';

const FORBIDDEN = ['ports', 'livenessProbe', 'readinessProbe', 'startupProbe', 'lifecycle', 'resources', 'resizePolicy', 'restartPolicy'];

function validateEphemeralContainers(spec: Fields): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set([...(spec.containers ?? []), ...(spec.initContainers ?? [])].map((c: Fields) => c.name as string));
  const seen = new Set<string>();
  ((spec.ephemeralContainers ?? []) as Fields[]).forEach((c, i) => {
    const p = `spec.ephemeralContainers[${i}]`;
    if (!c.name) errs.push(required(`${p}.name`));
    else {
      const e = isDNS1123Label(c.name);
      if (e) errs.push(invalidValue(`${p}.name`, c.name, e));
      if (others.has(c.name) || seen.has(c.name)) errs.push(duplicate(`${p}.name`, c.name));
      seen.add(c.name);
    }
    if (!c.image) errs.push(required(`${p}.image`));
    for (const f of FORBIDDEN) {
      const v = c[f];
      const empty = v === undefined || v === null || (typeof v === 'object' && Object.keys(v).length === 0);
      if (!empty) errs.push(forbiddenField(`${p}.${f}`, 'cannot be set for an Ephemeral Container'));
    }
    ((c.volumeMounts ?? []) as Fields[]).forEach((m, j) => {
      if (m.subPath) errs.push(forbiddenField(`${p}.volumeMounts[${j}].subPath`, 'cannot be set for an Ephemeral Container'));
    });
    if (c.targetContainerName && !others.has(c.targetContainerName)) errs.push(notFoundField(`${p}.targetContainerName`, c.targetContainerName));
  });
  return errs;
}

export const ephemeralContainersStrategy: Strategy = {
  /** Everything but spec.ephemeralContainers comes from the stored pod. */
  prepareForUpdate(obj: KubeObject, old: KubeObject) {
    const ephemeral = obj.spec?.ephemeralContainers;
    const { resourceVersion, managedFields } = obj.metadata;
    for (const k of Object.keys(obj)) if (k !== 'metadata') delete obj[k];
    Object.assign(obj, structuredClone(old));
    obj.metadata = { ...structuredClone(old.metadata), resourceVersion };
    if (managedFields) obj.metadata.managedFields = managedFields;
    obj.spec = { ...obj.spec, ephemeralContainers: ephemeral ?? [] };
    if (!obj.spec.ephemeralContainers.length) delete obj.spec.ephemeralContainers;
  },
  validate: (obj) => validateEphemeralContainers(obj.spec ?? {}),
  validateUpdate(obj, old) {
    const errs: FieldError[] = [];
    const now = new Map(((obj.spec?.ephemeralContainers ?? []) as Fields[]).map((c, i) => [c.name as string, { c, i }]));
    for (const c of (old.spec?.ephemeralContainers ?? []) as Fields[]) {
      const cur = now.get(c.name);
      if (!cur) errs.push(forbiddenField('spec.ephemeralContainers', `existing ephemeral containers "${c.name}" may not be removed`));
      else if (!isDeepStrictEqual(cur.c, c)) errs.push(forbiddenField(`spec.ephemeralContainers[${cur.i}]`, `existing ephemeral containers "${c.name}" may not be changed`));
    }
    return errs;
  },
};
