import { describe, expect, it } from 'vitest';
import { ClientArgsError, clientArgs, clientCommand, wholeNumber } from './client-args.js';

describe('bench child client arguments', () => {
  it('names each positional argument in order', () => {
    expect(clientArgs(['http://127.0.0.1:1', 'tok', '5'], ['origin', 'token', 'count'])).toEqual({ origin: 'http://127.0.0.1:1', token: 'tok', count: '5' });
  });

  it('refuses a missing or an extra argument instead of measuring with it undefined', () => {
    expect(() => clientArgs(['a', 'b'], ['origin', 'token', 'count'])).toThrow(new ClientArgsError('takes 3 arguments, got 2'));
    expect(() => clientArgs(['a', 'b', 'c', 'd'], ['origin', 'token', 'count'])).toThrow(new ClientArgsError('takes 3 arguments, got 4'));
  });

  it('refuses any option: the clients take none', () => {
    expect(() => clientArgs(['--quick', 'a', 'b'], ['origin', 'token'])).toThrow(ClientArgsError);
    expect(() => clientArgs(['--quick', 'a', 'b'], ['origin', 'token'])).toThrow("Unknown option '--quick'");
  });

  it('reads an argument that begins with a dash (a random token may) when the bench spawns the client with clientCommand', () => {
    const names = ['origin', 'token', 'count'] as const;
    const args = ['http://127.0.0.1:1', '-fJ2Xk', '5'];
    expect(() => clientArgs(args, names)).toThrow("Unknown option '-f'");
    // process.argv.slice(2) of `node script.js -- …`: what follows the script.
    const [script, ...argv] = clientCommand('start-runs-client.js', args);
    expect(script).toBe('start-runs-client.js');
    expect(clientArgs(argv, names)).toEqual({ origin: 'http://127.0.0.1:1', token: '-fJ2Xk', count: '5' });
  });

  it('reads whole numbers and refuses what Number() would turn into NaN, a fraction or too little', () => {
    expect(wholeNumber('600', 'count', 1)).toBe(600);
    expect(wholeNumber('0', 'everyMs')).toBe(0);
    expect(() => wholeNumber('', 'count', 1)).toThrow('count must be a whole number of at least 1, not ""');
    expect(() => wholeNumber('1.5', 'count')).toThrow(ClientArgsError);
    expect(() => wholeNumber('1e3', 'count')).toThrow(ClientArgsError);
    expect(() => wholeNumber('0', 'count', 1)).toThrow('count must be a whole number of at least 1, not "0"');
  });
});
