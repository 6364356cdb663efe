// A binary heap of items with string keys, supporting update and removal by key in O(log n).
export class KeyedHeap<T> {
  private items: T[] = [];
  private index = new Map<string, number>();

  /** `less(a, b)`: a comes out before b. */
  constructor(private key: (t: T) => string, private less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  peek(): T | undefined {
    return this.items[0];
  }

  /** Adds, or replaces the item with the same key and restores order. */
  push(item: T): void {
    const k = this.key(item);
    const i = this.index.get(k);
    if (i !== undefined) {
      this.items[i] = item;
      this.fix(i);
      return;
    }
    this.items.push(item);
    this.index.set(k, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  pop(): T | undefined {
    if (!this.items.length) return undefined;
    return this.removeAt(0);
  }

  remove(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.removeAt(i);
  }

  values(): T[] {
    return [...this.items];
  }

  private removeAt(i: number): T {
    const items = this.items;
    const out = items[i];
    const last = items.pop()!;
    this.index.delete(this.key(out));
    if (i < items.length) {
      items[i] = last;
      this.index.set(this.key(last), i);
      this.fix(i);
    }
    return out;
  }

  private fix(i: number): void {
    if (!this.up(i)) this.down(i);
  }

  private swap(i: number, j: number): void {
    const items = this.items;
    [items[i], items[j]] = [items[j], items[i]];
    this.index.set(this.key(items[i]), i);
    this.index.set(this.key(items[j]), j);
  }

  private up(i: number): boolean {
    let moved = false;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i], this.items[p])) break;
      this.swap(i, p);
      i = p;
      moved = true;
    }
    return moved;
  }

  private down(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1, r = l + 1;
      let m = i;
      if (l < n && this.less(this.items[l], this.items[m])) m = l;
      if (r < n && this.less(this.items[r], this.items[m])) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }
}
