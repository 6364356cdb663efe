// `--authorization-mode`: the authorizers a server runs, in order, after the privileged group
// (system:masters), which upstream puts first whatever the modes.
import { alwaysAllowDecider, alwaysDenyDecider, superuserDecider, unionAuthorizer, type Authorizer, type DecisionAuthorizer } from './index.js';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC', 'Node'] as const;
export type AuthorizationMode = typeof AUTHORIZATION_MODES[number];

/** kube-apiserver's default since 1.x with kubeadm: nodes by the graph, everyone else by RBAC. */
export const DEFAULT_AUTHORIZATION_MODE = 'Node,RBAC';

/** `RBAC,Node` → ['RBAC', 'Node']; unknown or repeated modes are an error naming them. */
export function parseAuthorizationModes(text: string): AuthorizationMode[] {
  const modes = text.split(',').map((m) => m.trim()).filter(Boolean);
  if (!modes.length) throw new Error('--authorization-mode: at least one mode is required');
  for (const m of modes) {
    if (!(AUTHORIZATION_MODES as readonly string[]).includes(m)) throw new Error(`--authorization-mode: unknown mode "${m}" (known: ${AUTHORIZATION_MODES.join(', ')})`);
  }
  const dup = modes.find((m, i) => modes.indexOf(m) !== i);
  if (dup) throw new Error(`--authorization-mode: "${dup}" given twice`);
  return modes as AuthorizationMode[];
}

/** The authorizers behind the modes; a mode without an implementation here throws. */
export function buildAuthorizer(modes: AuthorizationMode[], impl: Partial<Record<AuthorizationMode, DecisionAuthorizer>>): Authorizer {
  const builtin: Partial<Record<AuthorizationMode, DecisionAuthorizer>> = { AlwaysAllow: alwaysAllowDecider, AlwaysDeny: alwaysDenyDecider };
  const chain = modes.map((m) => {
    const a = impl[m] ?? builtin[m];
    if (!a) throw new Error(`${m} authorizer not available`);
    return a;
  });
  return unionAuthorizer([superuserDecider, ...chain]);
}
