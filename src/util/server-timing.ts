// The Server-Timing header (W3C Server Timing): `name;dur=1.23;desc="…", other;dur=0.5`.
// Written by the API server, read back by `capstan trace`. `start` is an extension parameter
// (the grammar allows any token), the stage's offset from the request's start in ms, so a
// waterfall can place stages that overlap (validating webhooks run at once).

export interface TimingEntry {
  name: string;
  dur: number;
  start?: number;
  desc?: string;
}

const token = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A stage name as a Server-Timing token: anything outside the token alphabet becomes `_`. */
export function timingToken(name: string): string {
  return token.test(name) ? name : name.replace(/[^!#$%&'*+\-.^_`|~0-9A-Za-z]/g, '_');
}

export function formatServerTiming(entries: TimingEntry[]): string {
  return entries.map((e) => {
    let s = `${timingToken(e.name)};dur=${e.dur.toFixed(3)}`;
    if (e.start !== undefined) s += `;start=${e.start.toFixed(3)}`;
    if (e.desc !== undefined) s += `;desc=${JSON.stringify(e.desc)}`;
    return s;
  }).join(', ');
}

/** Splits on `sep` outside quoted strings. */
function splitOutside(text: string, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '\\') { cur += c + (text[++i] ?? ''); continue; }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) { out.push(cur); cur = ''; continue; }
    cur += c;
  }
  out.push(cur);
  return out;
}

/** Entries of one or more Server-Timing header values; unknown parameters are ignored, as browsers do. */
export function parseServerTiming(values: string | string[] | undefined): TimingEntry[] {
  const out: TimingEntry[] = [];
  for (const value of Array.isArray(values) ? values : values ? [values] : []) {
    for (const metric of splitOutside(value, ',')) {
      const [name, ...params] = splitOutside(metric, ';').map((p) => p.trim());
      if (!name || !token.test(name)) continue;
      const e: TimingEntry = { name, dur: 0 };
      for (const p of params) {
        const eq = p.indexOf('=');
        if (eq < 0) continue;
        const key = p.slice(0, eq).trim().toLowerCase();
        let v = p.slice(eq + 1).trim();
        if (v.startsWith('"')) { try { v = JSON.parse(v); } catch { v = v.slice(1, -1); } }
        if (key === 'dur') e.dur = Number(v) || 0;
        else if (key === 'start') e.start = Number(v) || 0;
        else if (key === 'desc') e.desc = v;
      }
      out.push(e);
    }
  }
  return out;
}
