// A small reader for the HTML Chromium serializes with --dump-dom: elements with their
// attributes (entities decoded), children and text, listed in document order.
export interface Element {
  tag: string;
  attrs: Record<string, string>;
  children: Element[];
  texts: string[];
  descendants(): Element[];
  text(): string;
}

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const decode = (s: string) => s.replace(/&(#\d+|#x[0-9a-f]+|amp|lt|gt|quot|apos|nbsp);/gi, (_, e: string) =>
  e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)))
    : ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' } as Record<string, string>)[e.toLowerCase()]!);

function element(tag: string, attrs: Record<string, string>): Element {
  const e: Element = {
    tag, attrs, children: [], texts: [],
    descendants: () => e.children.flatMap((c) => [c, ...c.descendants()]),
    text: () => [...e.texts, ...e.children.map((c) => c.text())].join(' '),
  };
  return e;
}

export function parseDOM(html: string): Element[] {
  const all: Element[] = [];
  const root = element('#document', {});
  const stack: Element[] = [root];
  const token = /<!--[\s\S]*?-->|<!doctype[^>]*>|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[^\s=>/]+(?:="[^"]*"|='[^']*'|=[^\s>]+)?)*)\s*(\/?)>|([^<]+)/gi;
  for (let m = token.exec(html); m; m = token.exec(html)) {
    const [, close, open, rawAttrs, selfClose, text] = m;
    const top = stack[stack.length - 1]!;
    if (text !== undefined) { if (text.trim()) top.texts.push(decode(text)); continue; }
    if (close) {
      const i = stack.map((e) => e.tag).lastIndexOf(close.toLowerCase());
      if (i > 0) stack.length = i;
      continue;
    }
    if (!open) continue;
    const attrs: Record<string, string> = {};
    for (const a of (rawAttrs ?? '').matchAll(/([^\s=>/]+)(?:="([^"]*)"|='([^']*)'|=([^\s>]+))?/g)) attrs[a[1]!.toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? '');
    const e = element(open.toLowerCase(), attrs);
    top.children.push(e);
    all.push(e);
    if (!selfClose && !VOID.has(e.tag)) stack.push(e);
  }
  return all;
}
