// The three certificates.k8s.io admission plugins, in upstream's order, for the chain.
import type { AdmissionPlugin } from '../admission.js';
import type { Authorizer } from '../authz/index.js';
import { certificateApproval } from './certificate-approval.js';
import { certificateSigning } from './certificate-signing.js';
import { certificateSubjectRestriction } from './certificate-subject-restriction.js';

export function certificatePlugins(authz: Authorizer): AdmissionPlugin[] {
  return [certificateApproval(authz), certificateSigning(authz), certificateSubjectRestriction()];
}
