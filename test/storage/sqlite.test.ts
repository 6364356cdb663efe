import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/storage/index.js';
import { storageSuite } from './suite.js';

const dir = mkdtempSync(join(tmpdir(), 'capstan-sqlite-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

storageSuite(t, async () => openStore(`sqlite://${join(dir, `store-${++n}.db`)}`));
