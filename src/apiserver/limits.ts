// The sizes the API server refuses to go beyond, in one place. Each is Kubernetes' own figure
// unless the note says why not.

/** Request bodies, and what a YAML body decodes to (kube-apiserver's MaxRequestBodyBytes). */
export const maxBodyBytes = 3 * 1024 * 1024;

/**
 * One stored object, as etcd's default `--max-request-bytes` (1.5 MiB) allows. Enforced
 * above every store, so SQLite refuses what etcd would.
 */
export const maxStoredObjectBytes = 1.5 * 1024 * 1024;

/**
 * Objects and arrays nested deeper than this are refused. Go's decoders stop at 10,000;
 * V8's own recursion (structuredClone, JSON.stringify, util.isDeepStrictEqual) and Python's
 * json module give out near 1,000, so a stored object must stay far below that. Built-in
 * kinds nest about 20 deep (managedFields about 25); js-yaml's default is also 100.
 */
export const maxNestingDepth = 100;

/** Operations in one JSON patch (kube-apiserver's maxJSONPatchOperations). */
export const maxJSONPatchOperations = 10_000;

/** What `copy` operations of one JSON patch may add (kube-apiserver's JSONPatchMaxCopyBytes). */
export const maxJSONPatchCopyBytes = 3 * 1024 * 1024;
