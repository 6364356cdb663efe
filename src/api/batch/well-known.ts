// Label, annotation and finalizer names of batch/v1 (k8s.io/api/batch/v1 types.go), shared by
// the API server, the Job and CronJob controllers and hollow nodes.
export const jobNameLabel = 'batch.kubernetes.io/job-name';
export const legacyJobNameLabel = 'job-name';
export const controllerUidLabel = 'batch.kubernetes.io/controller-uid';
export const legacyControllerUidLabel = 'controller-uid';
/** Annotation and label of an Indexed Job's pods. */
export const completionIndexKey = 'batch.kubernetes.io/job-completion-index';
export const indexFailureCountAnnotation = 'batch.kubernetes.io/job-index-failure-count';
export const indexIgnoredFailureCountAnnotation = 'batch.kubernetes.io/job-index-ignored-failure-count';
/** Keeps a finished pod until its Job's status has counted it. */
export const jobTrackingFinalizer = 'batch.kubernetes.io/job-tracking';
export const cronJobScheduledTimestampAnnotation = 'batch.kubernetes.io/cronjob-scheduled-timestamp';
