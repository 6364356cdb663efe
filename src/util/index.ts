// The toolkit every layer may use: it imports nothing from capstan's other folders.
export { realClock, FakeClock, type Clock } from './clock.js';
export { Backoff, KeyedBackoff, backoffDelay, type BackoffPolicy } from './backoff.js';
export { SyncRunner, type SyncRunnerOptions, type Delay } from './sync-runner.js';
export { alive, cpuSeconds, killNow, parentPid, processArgs, procStat, signal, startTime, stopChild, terminate, waitExit, waitGone } from './process.js';
export { cidrContains, cidrOf, expandIPv6, formatCidr, formatIP, formatIPv4, ipBytes, parseCidr, parseIPv4, type Cidr } from './ip.js';
export { chooseHostAddress, defaultRouteInterfaces, hostAddress } from './host-address.js';
export { deepCopy, stableStringify } from './json.js';
export { QuantityError, milliValue, parseQuantity, quantityFormatMessage, quantityPattern, quantityValue, value } from './quantity.js';
export { formatDuration, formatSeconds, parseDuration } from './duration.js';
export { decodeJWT, keyID, signJWT, verifySignature, verifyingKey, algorithmOf, type Algorithm, type DecodedJWT, type JWTHeader, type VerifyingKey } from './jwt.js';
export { varint } from './varint.js';
