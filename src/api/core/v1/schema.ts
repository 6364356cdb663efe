// core/v1: registers every type of the legacy (empty) group.
import './pod.js';
import './pod-status.js';
import './container.js';
import './env.js';
import './probe.js';
import './volume.js';
import './volume-drivers.js';
import './scheduling.js';
import './service.js';
import './endpoints.js';
import './node.js';
import './namespace.js';
import './config.js';
import './event.js';
import './references.js';
import './policy.js';
