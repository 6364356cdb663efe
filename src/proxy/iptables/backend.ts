// The iptables proxy backend: iptables-restore --noflush of capstan's KUBE-* chains only.
// A full sync rewrites every chain and removes stale KUBE-* chains found by iptables-save.
import { execa } from 'execa';
import type { ProxyBackend, SyncResult } from '../backend.js';
import type { ProxyConfig, ServicePortPlan } from '../model.js';
import { BASE_CHAINS, HOOKS, countRules, iptablesRuleset, restoreInput, type IptRuleset, type IptTable } from './rules.js';

const OWNED = /^:(KUBE-(?:SERVICES|NODEPORTS|POSTROUTING|MARK-MASQ|EXTERNAL-SERVICES|SVC-|SVL-|EXT-|SEP-)\S*)/;

export class IptablesBackend implements ProxyBackend {
  readonly mode = 'iptables';
  private applied: IptRuleset | undefined;
  private hooked = false;

  constructor(private readonly cfg: ProxyConfig, private readonly netns: string | null = null, private readonly bin = { restore: 'iptables-restore', save: 'iptables-save', iptables: 'iptables' }) {}

  private run(cmd: string, args: string[], input?: string) {
    const [file, argv] = this.netns ? ['nsenter', [`--net=${this.netns}`, cmd, ...args]] : [cmd, args];
    return execa(file, argv, { input, reject: false, maxBuffer: 1 << 30 });
  }

  private async ownedChains(): Promise<Record<IptTable, Set<string>>> {
    const out = { nat: new Set<string>(), filter: new Set<string>() };
    for (const table of ['nat', 'filter'] as const) {
      const r = await this.run(this.bin.save, ['-t', table]);
      for (const line of String(r.stdout).split('\n')) {
        const m = OWNED.exec(line);
        if (m) out[table].add(m[1]!);
      }
    }
    return out;
  }

  private async ensureHooks(): Promise<void> {
    if (this.hooked) return;
    // Chains must exist before anything jumps to them.
    const decl = (['nat', 'filter'] as const).map((t) => `*${t}\n${BASE_CHAINS[t].map((c) => `:${c} - [0:0]`).join('\n')}\nCOMMIT\n`).join('');
    const existing = await this.ownedChains();
    const missing = (['nat', 'filter'] as const).some((t) => BASE_CHAINS[t].some((c) => !existing[t].has(c)));
    if (missing) await this.restore(decl);
    for (const h of HOOKS) {
      const check = await this.run(this.bin.iptables, ['-t', h.table, '-C', h.chain, ...h.rule]);
      if (check.exitCode !== 0) {
        const ins = await this.run(this.bin.iptables, ['-t', h.table, '-I', h.chain, '1', ...h.rule]);
        if (ins.exitCode !== 0) throw new Error(`iptables -I ${h.chain}: ${ins.stderr}`);
      }
    }
    this.hooked = true;
  }

  private async restore(input: string): Promise<void> {
    if (!input) return;
    const r = await this.run(this.bin.restore, ['--noflush', '-w'], input);
    if (r.exitCode !== 0) throw new Error(`iptables-restore failed: ${String(r.stderr).split('\n').slice(0, 3).join(' ')}`);
  }

  async sync(plans: readonly ServicePortPlan[], opts: { full: boolean }): Promise<SyncResult> {
    const next = iptablesRuleset(plans, this.cfg);
    let input: string;
    if (opts.full || !this.applied) {
      if (opts.full) this.hooked = false; // re-check the jumps from the built-in chains too
      await this.ensureHooks();
      input = restoreInput(undefined, next, await this.ownedChains());
    } else {
      input = restoreInput(this.applied, next);
    }
    await this.restore(input);
    this.applied = next;
    const { rules, chains } = countRules(next);
    return { operations: input ? input.split('\n').length - 1 : 0, rebuilt: false, rules, elements: 0, chains };
  }

  async cleanup(): Promise<void> {
    for (const h of HOOKS) await this.run(this.bin.iptables, ['-t', h.table, '-D', h.chain, ...h.rule]);
    const owned = await this.ownedChains();
    const input = (['nat', 'filter'] as const)
      .filter((t) => owned[t].size)
      .map((t) => `*${t}\n${[...owned[t]].map((c) => `:${c} - [0:0]`).join('\n')}\n${[...owned[t]].map((c) => `-X ${c}`).join('\n')}\nCOMMIT\n`)
      .join('');
    await this.restore(input);
    this.applied = undefined;
  }
}
