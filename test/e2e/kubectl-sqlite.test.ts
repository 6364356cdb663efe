import t from 'tap';
import { startAPIServerProcess } from '../helpers/apiserver-process.js';
import { kubectlSuite } from './kubectl-suite.js';

t.test('kubectl against capstan on SQLite', (t) => kubectlSuite(t, (t) => startAPIServerProcess(t)));
