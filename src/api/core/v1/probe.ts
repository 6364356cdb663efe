// core/v1 probes and lifecycle hooks (exec, HTTP, TCP, gRPC, sleep).
import { str, int32, int64, obj, arr, defineType, withDefault } from '../../schema.js';
import { intOrStringRef } from '../../meta/v1/names.js';
import { core } from './names.js';

defineType('io.k8s.api.core.v1.Probe', obj({
  exec: core('ExecAction', 'Run a command in the container; exit 0 is success.'),
  httpGet: core('HTTPGetAction', 'Send an HTTP GET; a 2xx or 3xx status is success.'),
  tcpSocket: core('TCPSocketAction', 'Open a TCP connection; connecting is success.'),
  grpc: core('GRPCAction', 'Call the gRPC health checking service.'),
  initialDelaySeconds: int32('Seconds after start before the first probe.'),
  timeoutSeconds: int32('Seconds before a probe times out; default 1.'),
  periodSeconds: int32('Seconds between probes; default 10.'),
  successThreshold: int32('Consecutive successes needed after a failure; default 1.'),
  failureThreshold: int32('Consecutive failures before giving up; default 3.'),
  terminationGracePeriodSeconds: int64('Grace period used when a failing probe kills the container.'),
}, 'A health check performed by the kubelet.'));

defineType('io.k8s.api.core.v1.Lifecycle', obj({
  postStart: core('LifecycleHandler', 'Runs right after the container is created.'),
  preStop: core('LifecycleHandler', 'Runs before the container is sent the termination signal.'),
}));

defineType('io.k8s.api.core.v1.LifecycleHandler', obj({
  exec: core('ExecAction'),
  httpGet: core('HTTPGetAction'),
  tcpSocket: core('TCPSocketAction'),
  sleep: core('SleepAction'),
}));

defineType('io.k8s.api.core.v1.ExecAction', obj({
  command: arr(str(), 'Command line to run, not through a shell.', { listType: 'atomic' }),
}));

defineType('io.k8s.api.core.v1.HTTPGetAction', obj({
  path: str('Path to request.'),
  port: intOrStringRef('Port number or name to connect to.'),
  host: str('Host to connect to; defaults to the pod IP.'),
  scheme: str('HTTP (default) or HTTPS.', { enum: ['HTTP', 'HTTPS'] }),
  httpHeaders: arr(core('HTTPHeader'), 'Extra request headers.', { listType: 'atomic' }),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.HTTPHeader', obj({
  name: str(),
  value: str(),
}, undefined, { required: ['name', 'value'] }));

defineType('io.k8s.api.core.v1.TCPSocketAction', obj({
  port: intOrStringRef('Port number or name to connect to.'),
  host: str(),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.GRPCAction', obj({
  port: int32(),
  service: withDefault(str(), ''),
}, undefined, { required: ['port'] }));

defineType('io.k8s.api.core.v1.SleepAction', obj({
  seconds: int64(),
}, undefined, { required: ['seconds'] }));
