// A set of field paths stored as a tree, as structured-merge-diff's fieldpath.Set: at each
// node, `members` are the path elements that end a path in the set, `children` the ones
// that continue. A node can be both (a list item owned as a whole and through its fields):
// FieldsV1 writes that as a "." entry.
import { compareElements, isPathElement, type Path, type PathElement } from './path-element.js';

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  insert(path: Path): void {
    if (path.length === 0) return;
    const node = path.slice(0, -1).reduce<FieldSet>((n, pe) => n.child(pe), this);
    node.members.add(path[path.length - 1]!);
  }

  has(path: Path): boolean {
    const node = path.slice(0, -1).reduce<FieldSet | undefined>((n, pe) => n?.children.get(pe), this);
    return node !== undefined && path.length > 0 && node.members.has(path[path.length - 1]!);
  }

  /** The subtree under one element (empty when absent). */
  under(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? EMPTY;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(other: FieldSet): FieldSet {
    const out = this.copy();
    for (const m of other.members) out.members.add(m);
    for (const [pe, sub] of other.children) out.children.set(pe, out.under(pe).union(sub));
    return out;
  }

  /** Paths in this set that are not in `other` (path by path, not subtree by subtree). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, sub] of this.children) out.setChild(pe, sub.difference(other.under(pe)));
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, sub] of this.children) {
      const theirs = other.children.get(pe);
      if (theirs) out.setChild(pe, sub.intersection(theirs));
    }
    return out;
  }

  /** Drops every path that is in `other` or lies under a path in `other`. */
  withoutSubtrees(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, sub] of this.children) {
      if (other.members.has(pe)) continue;
      const theirs = other.children.get(pe);
      out.setChild(pe, theirs ? sub.withoutSubtrees(theirs) : sub.copy());
    }
    return out;
  }

  /** Every path in the set, in FieldsV1 order (a node's own path before its children's). */
  paths(prefix: Path = []): PathElement[][] {
    const out: PathElement[][] = [];
    const elements = [...new Set([...this.members, ...this.children.keys()])].sort(compareElements);
    for (const pe of elements) {
      if (this.members.has(pe)) out.push([...prefix, pe]);
      const sub = this.children.get(pe);
      if (sub) out.push(...sub.paths([...prefix, pe]));
    }
    return out;
  }

  /** FieldsV1: `{"f:spec":{"f:replicas":{}}}`, "." marking a node that is also a member. */
  toFieldsV1(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const elements = [...new Set([...this.members, ...this.children.keys()])].sort(compareElements);
    for (const pe of elements) {
      const sub = this.children.get(pe);
      if (!sub) out[pe] = {};
      else out[pe] = this.members.has(pe) ? { '.': {}, ...sub.toFieldsV1() } : sub.toFieldsV1();
    }
    return out;
  }

  /** Parses FieldsV1; throws on anything that is not a well-formed field set. */
  static fromFieldsV1(json: unknown): FieldSet {
    const set = new FieldSet();
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new Error('fieldsV1 must be an object');
    for (const [pe, value] of Object.entries(json)) {
      if (pe === '.') continue;
      if (!isPathElement(pe)) throw new Error(`bad fieldsV1 path element ${JSON.stringify(pe)}`);
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`fieldsV1 ${pe} must be an object`);
      const keys = Object.keys(value);
      if (keys.length === 0 || keys.includes('.')) set.members.add(pe);
      if (keys.some((k) => k !== '.')) set.setChild(pe, FieldSet.fromFieldsV1(value));
    }
    return set;
  }

  private copy(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, sub] of this.children) out.children.set(pe, sub.copy());
    return out;
  }

  private child(pe: PathElement): FieldSet {
    let sub = this.children.get(pe);
    if (!sub) this.children.set(pe, (sub = new FieldSet()));
    return sub;
  }

  private setChild(pe: PathElement, sub: FieldSet): void {
    if (!sub.isEmpty()) this.children.set(pe, sub);
  }
}

const EMPTY = new FieldSet();
