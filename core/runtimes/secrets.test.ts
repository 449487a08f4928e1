import { describe, expect, it } from 'vitest';
import { inheritedEnv, isSecretName, Redactor, secretsOf, urlPasswords } from './secrets.js';

describe('what is a secret', () => {
  it.each(['API_KEY', 'OPENAI_API_KEY', 'GITHUB_TOKEN', 'CLIENT_SECRET', 'PASSWORD', 'PGPASSWORD', 'DB_PASSWORD_FILE', 'GPG_PASSPHRASE', 'AWS_CREDENTIALS', 'apikey'])('%s is secret-named', (name) => {
    expect(isSecretName(name)).toBe(true);
  });
  it.each(['HOME', 'PATH', 'MODE', 'PWD', 'TOKENIZER_PATH', 'KEYBOARD'])('%s is not', (name) => expect(isSecretName(name)).toBe(false));

  it("takes a flow's long values and its secret-named ones at any length, and only secret-named long ones from the host", () => {
    const env = { MODE: 'ci', REGION: 'eu-west-1', PASSWORD: 'pw1', DB: 'postgres://app:hunter@db/x' };
    expect([...secretsOf(env, 'flow')]).toEqual([
      ['eu-west-1', 'REGION'],
      ['pw1', 'PASSWORD'],
      ['postgres://app:hunter@db/x', 'DB'],
      ['hunter', 'DB'],
    ]);
    expect([...secretsOf({ ...env, GH_TOKEN: 'ghp_abcdef123', SHORT_TOKEN: '1' }, 'host')]).toEqual([['hunter', 'DB'], ['ghp_abcdef123', 'GH_TOKEN']]);
  });

  it('finds the passwords of a URL, in its userinfo and its query', () => {
    expect(urlPasswords('postgres://u:p%40ss@h:5432/db?sslmode=require&password=q1')).toEqual(['p%40ss', 'q1']);
    expect(urlPasswords('postgres://u@h/db')).toEqual([]);
    expect(urlPasswords('not a url password=x')).toEqual([]);
  });
});

describe('Redactor', () => {
  const redactor = Redactor.ofFlowEnv([{ TOKEN: 'tok-SEKRIT-123', PREFIX: 'tok-SEKRIT', PASSWORD: 'env', QUOTED: 'a"b\\c-long' }]);

  it('replaces every secret by [env NAME], longest first, in one pass', () => {
    expect(redactor.text('use tok-SEKRIT-123 or tok-SEKRIT now')).toBe('use [env TOKEN] or [env PREFIX] now');
  });

  it('leaves its own markers alone, so redacting twice changes nothing', () => {
    const once = redactor.text('env tok-SEKRIT-123');
    expect(once).toBe('[env PASSWORD] [env TOKEN]');
    expect(redactor.text(once)).toBe(once);
  });

  it('finds a value in its JSON-escaped form too', () => {
    expect(redactor.text(JSON.stringify({ v: 'a"b\\c-long' }))).toBe('{"v":"[env QUOTED]"}');
  });

  it('redacts every string of a JSON-like value and keeps the rest', () => {
    expect(redactor.deep({ a: ['tok-SEKRIT-123', 3, null], b: { c: true, d: 'x tok-SEKRIT-123' } })).toEqual({ a: ['[env TOKEN]', 3, null], b: { c: true, d: 'x [env TOKEN]' } });
    const none = Redactor.none();
    const value = { a: 'tok-SEKRIT-123' };
    expect(none.deep(value)).toBe(value);
  });
});

describe('what a child inherits', () => {
  it("is this process's environment without the database's password", () => {
    const env = inheritedEnv({ PATH: '/bin', PGPASSWORD: 'x', HIVEWATCH_DB: 'postgres://u:secret@h/db' });
    expect(env).toEqual({ PATH: '/bin' });
    expect(inheritedEnv({ HIVEWATCH_DB: '/data/hivewatch.db' })).toEqual({ HIVEWATCH_DB: '/data/hivewatch.db' });
  });
});
