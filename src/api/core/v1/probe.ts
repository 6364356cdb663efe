// core/v1 probes and lifecycle hooks (exec, HTTP, TCP, gRPC, sleep).
import { str, int32, int64, obj, arr, defineType, withDefault, pb } from '../../schema.js';
import { intOrStringRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Probe', obj({
  exec: pb(1, core('ExecAction', 'Run a command in the container; exit 0 is success.'), { in: 'ProbeHandler' }),
  httpGet: pb(2, core('HTTPGetAction', 'Send an HTTP GET; a 2xx or 3xx status is success.'), { in: 'ProbeHandler' }),
  tcpSocket: pb(3, core('TCPSocketAction', 'Open a TCP connection; connecting is success.'), { in: 'ProbeHandler' }),
  grpc: pb(4, core('GRPCAction', 'Call the gRPC health checking service.'), { in: 'ProbeHandler' }),
  initialDelaySeconds: pb(2, int32('Seconds after start before the first probe.')),
  timeoutSeconds: pb(3, int32('Seconds before a probe times out; default 1.')),
  periodSeconds: pb(4, int32('Seconds between probes; default 10.')),
  successThreshold: pb(5, int32('Consecutive successes needed after a failure; default 1.')),
  failureThreshold: pb(6, int32('Consecutive failures before giving up; default 3.')),
  terminationGracePeriodSeconds: pb(7, int64('Grace period used when a failing probe kills the container.'), 'keepZero'),
}, 'A health check performed by the kubelet.', { protoEmbeds: { ProbeHandler: 1 } }));

defineType('io.k8s.api.core.v1.Lifecycle', obj({
  postStart: pb(1, core('LifecycleHandler', 'Runs right after the container is created.')),
  preStop: pb(2, core('LifecycleHandler', 'Runs before the container is sent the termination signal.')),
}));

defineType('io.k8s.api.core.v1.LifecycleHandler', obj({
  exec: pb(1, core('ExecAction')),
  httpGet: pb(2, core('HTTPGetAction')),
  tcpSocket: pb(3, core('TCPSocketAction')),
  sleep: pb(4, core('SleepAction')),
}));

defineType('io.k8s.api.core.v1.ExecAction', obj({
  command: pb(1, arr(str(), 'Command line to run, not through a shell.', { listType: 'atomic' })),
}));

defineType('io.k8s.api.core.v1.HTTPGetAction', obj({
  path: pb(1, str('Path to request.')),
  port: pb(2, intOrStringRef('Port number or name to connect to.'), 'keepZero'),
  host: pb(3, str('Host to connect to; defaults to the pod IP.')),
  scheme: pb(4, str('HTTP (default) or HTTPS.', { enum: ['HTTP', 'HTTPS'] })),
  httpHeaders: pb(5, arr(core('HTTPHeader'), 'Extra request headers.', { listType: 'atomic' })),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.HTTPHeader', obj({
  name: pb(1, str(), 'keepZero'),
  value: pb(2, str(), 'keepZero'),
}, undefined, { required: ['name', 'value'] }));

defineType('io.k8s.api.core.v1.TCPSocketAction', obj({
  port: pb(1, intOrStringRef('Port number or name to connect to.'), 'keepZero'),
  host: pb(2, str()),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.GRPCAction', obj({
  port: pb(1, int32(), 'keepZero'),
  service: pb(2, withDefault(str(), ''), 'keepZero'),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.SleepAction', obj({
  seconds: pb(1, int64(), 'keepZero'),
}, undefined, { required: ['seconds'] }));
