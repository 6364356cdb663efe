#!/usr/bin/env node
import { main } from '../dist/src/cli/index.js';

main(process.argv.slice(2)).then(
  (code) => { if (typeof code === 'number') process.exitCode = code; },
  (err) => { console.error(err instanceof Error ? err.message : err); process.exit(1); },
);
