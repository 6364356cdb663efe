// The fieldSelector and labelSelector of a SubjectAccessReview's resourceAttributes
// (authorization.k8s.io/v1, KEP-4601): either rawSelector (the query parameter's form) or
// requirements, never both. kube-apiserver parses them into the attributes it authorizes;
// what does not parse limits nothing (an authorizer then decides on the wider request).
import type { Fields } from '../../api/object.js';
import type { FieldRequirement, Operator, Selector } from '../../api/labels.js';
import { invalidValue, required, type FieldError } from '../../api/validation.js';
import { fieldRequirements, labelRequirements } from './attributes.js';

export function validateReviewSelectors(attrs: Fields, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const which of ['fieldSelector', 'labelSelector']) {
    const sel: Fields | undefined = attrs[which];
    if (!sel) continue;
    const at = `${path}.${which}`;
    const hasRaw = !!sel.rawSelector, hasReqs = Array.isArray(sel.requirements) && sel.requirements.length > 0;
    if (hasRaw && hasReqs) errs.push(invalidValue(`${at}.rawSelector`, sel.rawSelector, 'may not specified at the same time as requirements'));
    if (!hasRaw && !hasReqs) errs.push(required(`${at}.requirements`, `when ${at} is specified, requirements or rawSelector is required`));
    (hasReqs ? sel.requirements as Fields[] : []).forEach((r, i) => {
      if (!r.key) errs.push(required(`${at}.requirements[${i}].key`, 'must be specified'));
      const values: unknown[] = Array.isArray(r.values) ? r.values : [];
      if ((r.operator === 'In' || r.operator === 'NotIn') && !values.length) errs.push(required(`${at}.requirements[${i}].values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      if ((r.operator === 'Exists' || r.operator === 'DoesNotExist') && values.length) errs.push(invalidValue(`${at}.requirements[${i}].values`, values, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    });
  }
  return errs;
}

/** Field requirements as a field selector holds them: one value, = or != (else: no limit). */
function fieldsFromRequirements(reqs: Fields[]): FieldRequirement[] | undefined {
  const out: FieldRequirement[] = [];
  for (const r of reqs) {
    const values: string[] = r.values ?? [];
    if (values.length !== 1 || (r.operator !== 'In' && r.operator !== 'NotIn')) return undefined;
    out.push({ field: r.key, op: r.operator === 'In' ? '=' : '!=', value: values[0]! });
  }
  return out;
}

const LABEL_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

function labelsFromRequirements(reqs: Fields[]): Selector | undefined {
  if (!reqs.every((r) => LABEL_OPERATORS.has(r.operator))) return undefined;
  return reqs.map((r) => ({ key: r.key as string, operator: r.operator as Operator, values: [...(r.values ?? [])] as string[] }));
}

/** The parsed selectors of validated resourceAttributes. */
export function reviewSelectors(attrs: Fields): { fieldSelector?: FieldRequirement[]; labelSelector?: Selector } {
  const f: Fields | undefined = attrs.fieldSelector, l: Fields | undefined = attrs.labelSelector;
  const fieldSelector = !f ? undefined : f.requirements?.length ? fieldsFromRequirements(f.requirements) : fieldRequirements(f.rawSelector);
  const labelSelector = !l ? undefined : l.requirements?.length ? labelsFromRequirements(l.requirements) : labelRequirements(l.rawSelector);
  return { ...(fieldSelector ? { fieldSelector } : {}), ...(labelSelector ? { labelSelector } : {}) };
}
