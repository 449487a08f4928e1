import { describe, expect, it } from 'vitest';
import { agentSecrets, hostSecrets, inheritedEnv, isSecretName, nameWords, urlPasswords } from './secret-names.js';

describe('a secret-named variable', () => {
  it.each([
    'API_KEY',
    'OPENAI_API_KEY',
    'apiKey',
    'OpenAIApiKey',
    'GITHUB_TOKEN',
    'GH_TOKEN2',
    'ANTHROPIC_AUTH_TOKEN',
    'CLIENT_SECRET',
    'PASSWORD',
    'PGPASSWORD',
    'MYSQL_PWD',
    'DB_PASSWD',
    'GPG_PASSPHRASE',
    'AWS_CREDENTIALS',
    'GOOGLE_CREDENTIAL',
    'DOCKER_CREDS',
    'BASIC_AUTH',
    'OAUTH',
    'HTTP_AUTHORIZATION',
    'apikey',
    'GHTOKEN',
    'signing-key',
    'stripe.secret',
  ])('%s is secret-named', (name) => expect(isSecretName(name)).toBe(true));

  it.each([
    'HOME',
    'PATH',
    'MODE',
    'NODE_ENV',
    'PWD',
    'OLDPWD',
    'TOKENIZER_PATH',
    'KEYBOARD',
    'MONKEY',
    'AUTHOR',
    'GIT_AUTHOR_NAME',
    'MAX_TOKENS',
    'CLAUDE_CODE_MAX_OUTPUT_TOKENS',
    'maxTokens',
    'SSH_KEY_PATH',
    'DB_PASSWORD_FILE',
    'SECRETS_DIR',
    'KEYS',
    '_',
  ])('%s is not', (name) => expect(isSecretName(name)).toBe(false));

  it('is read as words: separators, camelCase humps and trailing digits', () => {
    expect(nameWords('OpenAIApiKey')).toEqual(['OPEN', 'AI', 'API', 'KEY']);
    expect(nameWords('GH_TOKEN2')).toEqual(['GH', 'TOKEN']);
    expect(nameWords('stripe.secret-key')).toEqual(['STRIPE', 'SECRET', 'KEY']);
  });
});

describe("an agent's secrets", () => {
  it('are the values of secret-named and declared variables and connection strings, never settings', () => {
    const env = {
      MODE: 'timeout',
      NODE_ENV: 'production',
      API_KEY: 'k',
      SIGNER: 'sig-0042',
      DB: 'postgres://app:hunter@db/x',
      DISABLE_AUTH: 'true',
      EMPTY_TOKEN: '',
    };
    expect([...agentSecrets({ env, secrets: ['SIGNER'] })]).toEqual([
      ['k', 'API_KEY'],
      ['sig-0042', 'SIGNER'],
      ['postgres://app:hunter@db/x', 'DB'],
      ['hunter', 'DB'],
    ]);
    expect([...agentSecrets({ env })].map(([, name]) => name)).not.toContain('SIGNER');
  });

  it('a declared switch value is still a secret: the flow said so', () => {
    expect([...agentSecrets({ env: { USE_AUTH: '1', PIN: '1' }, secrets: ['PIN'] })]).toEqual([['1', 'PIN']]);
  });

  it("of Hivewatch's own environment: secret-named values of 6+ characters and connection strings", () => {
    const host = { GH_TOKEN: 'ghp_abcdef123', SHORT_TOKEN: 'abc', MODE: 'production', DATABASE_URL: 'postgres://u:pw@h/db', NODE_ENV: 'production' };
    expect([...hostSecrets(host)]).toEqual([
      ['ghp_abcdef123', 'GH_TOKEN'],
      ['postgres://u:pw@h/db', 'DATABASE_URL'],
    ]);
  });

  it('finds the passwords of a URL, in its userinfo and its query', () => {
    expect(urlPasswords('postgres://u:p%40ss@h:5432/db?sslmode=require&password=q1')).toEqual(['p%40ss', 'q1']);
    expect(urlPasswords('postgres://u@h/db')).toEqual([]);
    expect(urlPasswords('not a url password=x')).toEqual([]);
  });
});

describe('what a child inherits', () => {
  it("is this process's environment without the database's password", () => {
    const env = inheritedEnv({ PATH: '/bin', PGPASSWORD: 'x', HIVEWATCH_DB: 'postgres://u:secret@h/db' });
    expect(env).toEqual({ PATH: '/bin' });
    expect(inheritedEnv({ HIVEWATCH_DB: '/data/hivewatch.db' })).toEqual({ HIVEWATCH_DB: '/data/hivewatch.db' });
  });
});
