// Authorization: may this user do this verb on this resource? The RBAC authorizer arrives
// with its own issue; until then every authenticated user is allowed, and the stage stays
// in the pipeline so RBAC plugs in here without touching the handlers.
import type { UserInfo } from './authn/index.js';
import type { RequestInfo } from './request-info.js';

export interface Authorizer {
  /** Returns null when allowed, or the reason for a 403. */
  authorize(user: UserInfo, info: RequestInfo): Promise<string | null>;
}

export const alwaysAllow: Authorizer = {
  async authorize() {
    return null;
  },
};
