import { describe, expect, it } from 'vitest';
import { TOKEN_STORAGE_KEY } from './constants.js';
import { takeToken } from './index.js';

/**
 * Where the browser shell keeps its token: the origin's localStorage (scoped
 * by port, unlike cookies), so a copied link in a new tab of the same server finds it; the
 * address bar loses it. A window here is the few parts takeToken reads, and its storage can
 * refuse like a browser with storage disabled.
 */

class MemoryStorage {
  readonly items = new Map<string, string>();
  constructor(private readonly refuse: 'never' | 'writes' | 'always' = 'never') {}
  getItem(key: string): string | null {
    if (this.refuse === 'always') throw new DOMException('storage is disabled', 'SecurityError');
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string): void {
    if (this.refuse !== 'never') throw new DOMException('quota exceeded', 'QuotaExceededError');
    this.items.set(key, value);
  }
}

function fakeWindow(href: string, storage: MemoryStorage | 'throws'): { win: Window; replaced: string[] } {
  const replaced: string[] = [];
  const win = {
    location: { href },
    history: { state: null, replaceState: (_state: unknown, _title: string, url: string) => replaced.push(url) },
    get localStorage(): Storage {
      if (storage === 'throws') throw new DOMException('access denied', 'SecurityError');
      return storage as unknown as Storage;
    },
  };
  return { win: win as unknown as Window, replaced };
}

describe('takeToken', () => {
  it('moves ?token= into localStorage and out of the address bar, keeping the rest of the URL', () => {
    const storage = new MemoryStorage();
    const { win, replaced } = fakeWindow('http://127.0.0.1:4000/?token=abc&x=1#/runs/r1', storage);
    expect(takeToken(win)).toBe('abc');
    expect(storage.items.get(TOKEN_STORAGE_KEY)).toBe('abc');
    expect(replaced).toEqual(['/?x=1#/runs/r1']);
  });

  it('a copied link (no token in it) opened in a new tab reads the token this origin stored', () => {
    const storage = new MemoryStorage();
    storage.items.set(TOKEN_STORAGE_KEY, 'abc');
    const { win, replaced } = fakeWindow('http://127.0.0.1:4000/#/runs/r1', storage);
    expect(takeToken(win)).toBe('abc');
    expect(replaced).toEqual([]);
  });

  it('a fresh URL token replaces a stale stored one (another database served on the same port)', () => {
    const storage = new MemoryStorage();
    storage.items.set(TOKEN_STORAGE_KEY, 'old');
    expect(takeToken(fakeWindow('http://127.0.0.1:4000/?token=new', storage).win)).toBe('new');
    expect(storage.items.get(TOKEN_STORAGE_KEY)).toBe('new');
  });

  it('storage that refuses writes, reads or any access: the tab keeps the URL token, a tab without one has none', () => {
    for (const storage of [new MemoryStorage('writes'), new MemoryStorage('always'), 'throws' as const]) {
      expect(takeToken(fakeWindow('http://127.0.0.1:4000/?token=abc#/runs', storage).win)).toBe('abc');
      expect(takeToken(fakeWindow('http://127.0.0.1:4000/#/runs', storage).win)).toBe('');
    }
  });
});
