// The Clock lives in the toolkit (src/util) so layers below the client can take one too.
export { realClock, FakeClock, type Clock } from '../util/index.js';
