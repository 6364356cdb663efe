// ESLint for capstan: typescript-eslint's recommended rules (syntax only, no type checking,
// so a run stays fast) and the layer rule of docs/ARCHITECTURE.md.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The layers, written once. Each src/ folder lists the src/ folders it may import; anything
// not listed is forbidden. Lower layers never import upper ones; only the node side imports
// the native addon wrappers (netlink, nft); cli assembles everything. `cri` is the top-level
// cri/ folder (the CRI client), which only the node side uses.
const layers = {
  util: [],
  log: ['util'],
  pki: ['util', 'log'],
  api: ['util', 'log'],
  storage: ['util', 'log', 'api'],
  client: ['util', 'log', 'api', 'pki'],
  apiserver: ['util', 'log', 'api', 'pki', 'storage'],
  controllers: ['util', 'log', 'api', 'pki', 'client'],
  scheduler: ['util', 'log', 'api', 'client'],
  hollow: ['util', 'log', 'api', 'pki', 'client'],
  operator: ['util', 'log', 'api', 'client', 'controllers'],
  netlink: ['util', 'log'],
  nft: ['util', 'log', 'netlink'],
  kubelet: ['util', 'log', 'api', 'pki', 'client', 'cri'],
  network: ['util', 'log', 'api', 'client', 'netlink', 'nft'],
  proxy: ['util', 'log', 'api', 'client', 'netlink', 'nft'],
  dns: ['util', 'log', 'api', 'client', 'netlink'],
  labview: ['util', 'log', 'api', 'client', 'network', 'proxy'],
  lab: ['util', 'log', 'api', 'pki', 'client', 'netlink', 'nft', 'kubelet', 'network', 'proxy'],
  reset: ['util', 'log', 'api', 'client', 'netlink', 'nft', 'kubelet', 'network', 'proxy', 'lab'],
  cli: null, // the commands: may import every layer
};
const topLevel = new Set(['cri']); // folders beside src/, reached with one more '../'
const everything = [...Object.keys(layers), ...topLevel];

// Imports are relative, so which folder '../x/y.js' names depends on how deep the importing
// file sits: from src/<folder>/<d-1 subfolders>/file.ts, d '../' reach src/ and d+1 the repo.
const maxDepth = 5;
function layerRules() {
  const configs = [];
  for (const [folder, allowed] of Object.entries(layers)) {
    if (allowed === null) continue;
    const forbidden = everything.filter((f) => f !== folder && !allowed.includes(f));
    const inSrc = forbidden.filter((f) => !topLevel.has(f));
    const beside = forbidden.filter((f) => topLevel.has(f));
    for (let depth = 1; depth <= maxDepth; depth++) {
      const up = (n) => `(\\.\\./){${n}}`;
      const patterns = [];
      if (inSrc.length) patterns.push({
        regex: `^${up(depth)}(${inSrc.join('|')})(/|$)`,
        message: `src/${folder} may import only ${allowed.length ? allowed.join(', ') : 'nothing else in src/'} (layers in docs/ARCHITECTURE.md).`,
      });
      if (beside.length) patterns.push({
        regex: `^${up(depth + 1)}(${beside.join('|')})(/|$)`,
        message: `src/${folder} may not import ${beside.join(', ')}: only the node side does (docs/ARCHITECTURE.md).`,
      });
      configs.push({
        files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
        rules: { 'no-restricted-imports': ['error', { patterns }] },
      });
    }
  }
  return configs;
}

export default defineConfig(
  { ignores: ['dist/**', 'build/**', 'node_modules/**', 'native/**', '.capstan/**', 'bench/reports/**'] },
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `_`-prefixed names are deliberate: an interface's parameter a fake does not need.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `let x; t.teardown(() => x?.close()); x = await open()` registers cleanup before the
      // thing exists, so a failure half-way still cleans up: x cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read arbitrary JSON answers (Status bodies, watch events, `kubectl -o json`) and
    // poke at them; `any` there costs nothing a user sees. src/ and bench/ keep the rule.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Known debt, not a pattern to copy: the nft fallback driver reads `nft -j` output back
    // without a typed model of libnftables-json(5). Type it and drop this entry.
    files: ['src/nft/nft-json.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...layerRules(),
);
