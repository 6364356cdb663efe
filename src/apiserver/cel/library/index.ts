// The functions every capstan CEL environment has beyond CEL's standard ones: the string
// extensions and the Kubernetes libraries (apiserver/pkg/cel/library).
import type { CelFunc } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { authzLibrary } from './authz.js';
import { listsLibrary } from './lists.js';
import { optionalLibrary } from './optional.js';
import { quantityLibrary } from './quantity.js';
import { regexLibrary } from './regex.js';
import { urlLibrary } from './url.js';

export const kubernetesLibrary: CelFunc[] = [...strings, ...listsLibrary, ...regexLibrary, ...quantityLibrary, ...urlLibrary, ...authzLibrary, ...optionalLibrary];
