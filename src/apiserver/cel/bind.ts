// The `cel.bind(name, init, expr)` macro of cel-go's bindings extension (used by Kubernetes):
// `expr` with `name` bound to `init`, evaluated once. @bufbuild/cel's parser expands only the
// standard macros, so the call is expanded here as cel-go does: a comprehension over an
// empty list whose accumulator is the bound name.
import type { parse } from '@bufbuild/cel';

type Expr = ReturnType<typeof parse>['expr'];

const UNUSED = '#unused';

/** Expands every cel.bind in place; errors for a name that is not a simple identifier. */
export function expandBind(root: Expr, nextId: { n: bigint }, position: (id: bigint) => string): string[] {
  const errs: string[] = [];
  const id = () => ++nextId.n;
  const visit = (x: Expr | undefined): void => {
    if (!x) return;
    const k = x.exprKind;
    switch (k.case) {
      case 'selectExpr': visit(k.value.operand); return;
      case 'callExpr': {
        visit(k.value.target);
        for (const a of k.value.args) visit(a);
        const t = k.value.target?.exprKind;
        if (k.value.function !== 'bind' || t?.case !== 'identExpr' || t.value.name !== 'cel' || k.value.args.length !== 3) return;
        const [name, init, body] = k.value.args;
        if (name.exprKind.case !== 'identExpr') { errs.push(`ERROR: ${position(name.id)}: cel.bind() variable name must be a simple identifier`); return; }
        (x as { exprKind: unknown }).exprKind = {
          case: 'comprehensionExpr',
          value: {
            iterVar: UNUSED, iterVar2: '',
            iterRange: { id: id(), exprKind: { case: 'listExpr', value: { elements: [], optionalIndices: [] } } },
            accuVar: name.exprKind.value.name, accuInit: init,
            loopCondition: { id: id(), exprKind: { case: 'constExpr', value: { constantKind: { case: 'boolValue', value: false } } } },
            loopStep: { id: id(), exprKind: { case: 'identExpr', value: { name: name.exprKind.value.name } } },
            result: body,
          },
        };
        return;
      }
      case 'listExpr': for (const a of k.value.elements) visit(a); return;
      case 'structExpr': for (const en of k.value.entries) { if (en.keyKind.case === 'mapKey') visit(en.keyKind.value); visit(en.value); } return;
      case 'comprehensionExpr': for (const e of [k.value.iterRange, k.value.accuInit, k.value.loopCondition, k.value.loopStep, k.value.result]) visit(e); return;
      default:
    }
  };
  visit(root);
  return errs;
}
