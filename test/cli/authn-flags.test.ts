// kube-apiserver's authentication flags as `capstan apiserver` and `capstan up` read them:
// the signing key created once in the data dir (0600) and reused, booleans as Go reads
// them, durations, audiences.
import t from 'tap';
import { parseArgs } from 'node:util';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { authenticationFlags, authenticationOptions } from '../../src/cli/authn-flags.js';

const parse = (args: string[]) => parseArgs({ args, options: authenticationFlags, strict: true }).values;

t.test('defaults: a key in the data dir, anonymous on, extended kubelet tokens', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-authn-flags-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const o = authenticationOptions(parse([]), dir);
  t.equal(statSync(join(dir, 'sa.key')).mode & 0o777, 0o600);
  const pem = readFileSync(join(dir, 'sa.key'), 'utf8');
  t.match(pem, /BEGIN PRIVATE KEY/);
  t.equal(o.anonymousAuth, true);
  t.equal(o.serviceAccountExtendTokenExpiration, true);
  t.equal(o.serviceAccountKeys?.verifying.length, 1);
  const again = authenticationOptions(parse([]), dir);
  t.equal(readFileSync(join(dir, 'sa.key'), 'utf8'), pem, 'kept across restarts');
  t.equal(again.serviceAccountKeys?.verifying[0].kid, o.serviceAccountKeys?.verifying[0].kid);
});

t.test('flags', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'capstan-authn-flags-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  authenticationOptions(parse([]), join(dir, 'other'));
  const o = authenticationOptions(parse([
    '--anonymous-auth=false', '--service-account-max-token-expiration', '24h', '--api-audiences', 'a, b',
    '--service-account-issuer', 'https://one', '--service-account-issuer', 'https://two',
    '--service-account-key-file', join(dir, 'other', 'sa.key'), '--service-account-extend-token-expiration=false',
  ]), dir);
  t.equal(o.anonymousAuth, false);
  t.equal(o.serviceAccountMaxTokenExpirationSeconds, 86400);
  t.same(o.apiAudiences, ['a', 'b']);
  t.same(o.serviceAccountIssuers, ['https://one', 'https://two']);
  t.equal(o.serviceAccountExtendTokenExpiration, false);
  t.equal(o.serviceAccountKeys?.verifying.length, 2, 'the signing key and the extra public key');
  t.throws(() => authenticationOptions(parse(['--anonymous-auth=maybe']), dir), /--anonymous-auth: invalid boolean/);
});
