import { afterEach, describe, expect, it } from 'vitest';
import { TestReceiver } from '../testing.js';
import { postWebhook, withoutCredentials } from './http-post.js';

/**
 * A webhook URL with `user:pass@` (a receiver behind HTTP Basic authentication; docs/triage.md,
 * "Secrets in webhook URLs" accepts it): the credentials reach the receiver as an Authorization
 * header, not in the request line. Against a real receiver on 127.0.0.1.
 */

const receivers: TestReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

describe('webhook URLs with credentials', () => {
  it('posts to the URL without them, with Authorization: Basic of the decoded user and password', async () => {
    const receiver = new TestReceiver();
    receivers.push(receiver);
    const base = await receiver.start();
    const url = base.replace('http://', 'http://hook%40ops:p%3Ass@') + '/in?x=1';
    const result = await postWebhook(url, '{"a":1}', { 'x-hivewatch-delivery': 'dlv_1' }, 5_000);
    expect(result).toEqual({ status: 200 });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request!.path).toBe('/in?x=1');
    expect(request!.headers.authorization).toBe(`Basic ${Buffer.from('hook@ops:p:ss').toString('base64')}`);
    expect(request!.headers['x-hivewatch-delivery']).toBe('dlv_1');
    expect(request!.body).toEqual({ a: 1 });
  });

  it('leaves a URL without credentials as written and adds no header', () => {
    expect(withoutCredentials('https://hooks.example/services/T1/B2/c3?token=z')).toEqual({
      url: 'https://hooks.example/services/T1/B2/c3?token=z',
      authorization: {},
    });
  });
});
