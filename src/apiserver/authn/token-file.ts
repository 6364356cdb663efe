// The static token file (`--token-auth-file`): `token,user,uid,"group1,group2"` per line.
import { readFileSync } from 'node:fs';
import { timingSafeEqual } from 'node:crypto';
import type { TokenAuthenticator, TokenResult, UserInfo } from './types.js';

export function parseTokenFile(text: string): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const fields = splitCSV(line);
    if (fields.length < 2) throw new Error(`token file: need at least token and user in "${line.slice(0, 20)}..."`);
    const [token, username, uid, groups] = fields;
    tokens.set(token, { username, uid: uid || undefined, groups: groups ? groups.split(',').map((g) => g.trim()).filter(Boolean) : [] });
  }
  return tokens;
}

function splitCSV(line: string): string[] {
  const out: string[] = [];
  let cur = '', quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) { out.push(cur); cur = ''; }
    else cur += ch;
  }
  out.push(cur);
  return out.map((f) => f.trim());
}

export class TokenFileAuthenticator implements TokenAuthenticator {
  private tokens: Map<string, UserInfo>;
  constructor(path: string) {
    this.tokens = parseTokenFile(readFileSync(path, 'utf8'));
  }

  async authenticateToken(token: string, audiences: string[]): Promise<TokenResult | null> {
    // Compared in constant time so the reply's timing says nothing about a near miss.
    const presented = Buffer.from(token);
    for (const [known, user] of this.tokens) {
      const k = Buffer.from(known);
      if (k.length === presented.length && timingSafeEqual(k, presented)) return { user, audiences };
    }
    return null;
  }
}
