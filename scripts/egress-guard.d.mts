// Types of egress-guard.mjs for the TypeScript test that drives it.
export interface GuardCgroup {
  dir: string;
  parent: string;
  nft: string;
  level: number;
  enter(pid?: number): void;
  remove(): void;
}
export interface Egress { packets: number; destinations: { address: string; packets: number; bytes: number }[] }
export const TABLE_PREFIX: string;
export function unavailable(): string | null;
export function cgroup2Mount(): string | null;
export function ownCgroupDir(): string;
export function makeCgroup(name: string): GuardCgroup;
export function defaultRouteInterfaces(netns?: string): string[];
export function tableName(): string;
export function egressRuleset(o: { table: string; uplinks: string[]; cgroup: Pick<GuardCgroup, 'nft' | 'level'> }): string;
export function installGuard(o: { table: string; uplinks: string[]; cgroup: Pick<GuardCgroup, 'nft' | 'level'>; netns?: string }): void;
export function readEgress(o: { table: string; netns?: string }): Egress;
export function removeGuard(o: { table: string; netns?: string }): void;
export function startGuard(): { skip: string } | { skip?: undefined; table: string; uplinks: string[]; cgroup: GuardCgroup; read(): Egress; stop(): void };
