import { describe, expect, it } from 'vitest';
import { checkFlow } from '../../flow/check/check.js';
import { restoreSecrets, shownSource } from './secrets.js';

const FLOW = [
  'agent a:',
  '  command: "tool"',
  '  env: ["API_TOKEN=tok-1234567", "PASSWORD=pw", "MODE=timeout", "SALT=pepper"]',
  '  secrets: [SALT]',
  'session: a',
  '  prompt: "go before the timeout, with pepper-free pw-less words"',
  '',
].join('\n');
const shown = shownSource(FLOW, checkFlow(FLOW, 'user/a.prose').plan);

describe('a flow as the window shows it, and a draft saved from it', () => {
  it('shows each secret-named or declared value as [secret NAME] and leaves settings and other words alone', () => {
    expect(shown).toContain('"API_TOKEN=[secret API_TOKEN]", "PASSWORD=[secret PASSWORD]", "MODE=timeout", "SALT=[secret SALT]"');
    expect(shown).toContain('prompt: "go before the timeout, with [secret SALT]-free [secret PASSWORD]-less words"');
    expect(shown).not.toContain('tok-1234567');
  });

  it('puts the values of the flow the draft came from back in place of the markers', () => {
    const draft = `# edited\n${shown}`;
    expect(restoreSecrets(draft, { source: FLOW, id: 'user/a.prose' })).toBe(`# edited\n${FLOW}`);
    expect(restoreSecrets('session "plain"\n', null)).toBe('session "plain"\n');
  });

  it('refuses a marker nothing can fill, rather than write it into the file as the value', () => {
    expect(() => restoreSecrets(shown, null)).toThrow(expect.objectContaining({ status: 400, apiCode: 'hidden_secret' }));
    const other = 'agent b:\n  command: "tool"\n  env: ["API_TOKEN=another-value"]\n';
    expect(() => restoreSecrets(shown, { source: other, id: 'user/b.prose' })).toThrow(/\[secret PASSWORD\].*user\/b\.prose does not hold/);
    const twice = 'agent b:\n  command: "t"\n  env: ["PASSWORD=one"]\nagent c:\n  command: "t"\n  env: ["PASSWORD=two"]\n';
    expect(() => restoreSecrets('x [secret PASSWORD]', { source: twice, id: 'user/b.prose' })).toThrow(/holds twice with different values/);
  });
});
