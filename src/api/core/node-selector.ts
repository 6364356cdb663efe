// Node selector terms (required and preferred node affinity), compiled once per pod (the
// scheduler) or per DaemonSet (its controller):
// terms are ORed, the requirements inside a term ANDed; a term with no requirements
// matches no node, as in Kubernetes.
export type NodeOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'Gt' | 'Lt';

export interface CompiledRequirement {
  key: string;
  op: NodeOperator;
  values: Set<string>;
  /** The integer operand of Gt/Lt. */
  bound: number;
}

export interface CompiledTerm {
  exprs: CompiledRequirement[];
  fields: CompiledRequirement[];
  empty: boolean;
}

interface RawRequirement { key: string; operator: string; values?: string[] }
interface RawTerm { matchExpressions?: RawRequirement[]; matchFields?: RawRequirement[] }

const integer = /^-?\d+$/;

function compileRequirement(r: RawRequirement, field: boolean): CompiledRequirement {
  const values = r.values ?? [];
  switch (r.operator) {
    case 'In': case 'NotIn':
      if (!values.length) throw new Error(`${r.key}: values must be non-empty for ${r.operator}`);
      break;
    case 'Exists': case 'DoesNotExist':
      if (field) throw new Error(`${r.key}: ${r.operator} is not a valid operator for matchFields`);
      break;
    case 'Gt': case 'Lt':
      if (field || values.length !== 1 || !integer.test(values[0])) throw new Error(`${r.key}: ${r.operator} needs a single integer value`);
      break;
    default:
      throw new Error(`${r.key}: "${r.operator}" is not a valid node selector operator`);
  }
  if (field && r.key !== 'metadata.name') throw new Error(`matchFields: "${r.key}" is not a supported field`);
  return { key: r.key, op: r.operator as NodeOperator, values: new Set(values), bound: Number(values[0]) };
}

export function compileNodeSelectorTerms(terms: unknown[]): CompiledTerm[] {
  return (terms as RawTerm[]).map((t) => {
    const exprs = (t?.matchExpressions ?? []).map((r) => compileRequirement(r, false));
    const fields = (t?.matchFields ?? []).map((r) => compileRequirement(r, true));
    return { exprs, fields, empty: !exprs.length && !fields.length };
  });
}

function requirementMatches(r: CompiledRequirement, v: string | undefined): boolean {
  switch (r.op) {
    case 'In': return v !== undefined && r.values.has(v);
    case 'NotIn': return v === undefined || !r.values.has(v);
    case 'Exists': return v !== undefined;
    case 'DoesNotExist': return v === undefined;
    case 'Gt': return v !== undefined && integer.test(v) && Number(v) > r.bound;
    case 'Lt': return v !== undefined && integer.test(v) && Number(v) < r.bound;
  }
}

export function termMatches(term: CompiledTerm, nodeName: string, labels: Record<string, string>): boolean {
  if (term.empty) return false;
  for (const r of term.exprs) if (!requirementMatches(r, Object.prototype.hasOwnProperty.call(labels, r.key) ? labels[r.key] : undefined)) return false;
  for (const r of term.fields) if (!requirementMatches(r, nodeName)) return false;
  return true;
}

export function anyTermMatches(terms: CompiledTerm[], nodeName: string, labels: Record<string, string>): boolean {
  for (const t of terms) if (termMatches(t, nodeName, labels)) return true;
  return false;
}
