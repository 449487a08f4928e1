import type pg from 'pg';

/**
 * `watchChanges` on PostgreSQL: one dedicated connection LISTENs on the journal's channel for
 * every watcher of a store (a pooled connection cannot LISTEN: it is handed to others between
 * queries). Writers NOTIFY in the transaction that commits, so a notification means a commit.
 *
 * When the connection drops (server restart, network, an administrator's terminate), it is
 * opened again after a pause that doubles up to `maxRetryMs`, and every watcher is called once
 * it is back: commits made while nobody listened were not announced, and a spurious call only
 * costs the watcher one look at `changeToken`.
 */
export interface ChangeWatcherOptions {
  channel: string;
  /** A new, unconnected client (the store's connection settings). */
  connect: () => pg.Client;
  /** A watcher's exception. */
  onWatcherError: (error: unknown) => void;
  /** The connection lost, or a reconnect failed (it keeps trying). */
  onConnectionError: (error: unknown) => void;
  /** Payloads of this store's own commits, which are not another connection's change. */
  isOwn?: (payload: string) => boolean;
  /** Called when a lost connection is back (before the watchers). */
  onReconnect?: () => void;
  retryMs?: number;
  maxRetryMs?: number;
}

export class ChangeWatcher {
  private readonly watchers = new Set<() => void>();
  private client: pg.Client | null = null;
  private listening: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private retryMs: number;
  private closed = false;

  constructor(private readonly options: ChangeWatcherOptions) {
    this.retryMs = options.retryMs ?? 100;
  }

  /** Whether anyone watches (only then are notifications received). */
  get active(): boolean {
    return this.watchers.size > 0;
  }

  watch(onChange: () => void): () => void {
    if (this.closed) return () => undefined;
    this.watchers.add(onChange);
    if (this.client === null && this.timer === null) this.listen(false);
    return () => {
      this.watchers.delete(onChange);
    };
  }

  /** Resolves once the LISTEN of the current connection is in place (tests; start-up ordering). */
  async whenListening(): Promise<void> {
    while (this.listening !== null) {
      const current = this.listening;
      await current;
      if (current === this.listening) return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.watchers.clear();
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    this.listening = null;
    if (client !== null) await client.end().catch(() => undefined);
  }

  private fire(): void {
    for (const watcher of this.watchers) {
      try {
        watcher();
      } catch (error) {
        this.options.onWatcherError(error);
      }
    }
  }

  private listen(reconnecting: boolean): void {
    const client = this.options.connect();
    this.client = client;
    client.on('notification', (message) => {
      if (message.channel !== this.options.channel) return;
      if (this.options.isOwn?.(message.payload ?? '')) return;
      this.fire();
    });
    client.on('error', (error) => this.dropped(client, error));
    client.on('end', () => this.dropped(client, null));
    this.listening = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${this.options.channel}`);
        this.retryMs = this.options.retryMs ?? 100;
        if (reconnecting) {
          this.options.onReconnect?.();
          this.fire();
        }
      } catch (error) {
        this.dropped(client, error);
      }
    })();
  }

  private dropped(client: pg.Client, error: unknown): void {
    if (this.closed || client !== this.client) return;
    if (error !== null) this.options.onConnectionError(error);
    this.client = null;
    this.listening = null;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.closed) this.listen(true);
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, this.options.maxRetryMs ?? 5_000);
  }
}

/**
 * What this store's own commits announce, which watchers skip: a journal batch's head followed by
 * the store's tag (`<head>:<tag>`, writer.ts CLAIM_POSITIONS), known by the tag alone, so the
 * batch's COMMIT can go out with its statements; and `command:<id>` (or a bare
 * head, from a writer without a tag), expected before its commit while anyone watches.
 * Notifications arrive in commit order, so a head also settles every smaller expected one (a
 * notification lost while disconnected cannot leave entries behind).
 */
export class OwnNotifications {
  private readonly payloads = new Set<string>();

  /**
   * `watching`: whether anyone listens (nothing is kept while nobody does). `tag`: what follows
   * the head in this store's journal notifications, `:` and a random word of its own.
   */
  constructor(
    private readonly watching: () => boolean,
    readonly tag = '',
  ) {}

  /** Marks what a commit will announce as this store's own, before the COMMIT that sends it. */
  expect(payload: string): void {
    if (this.watching()) this.payloads.add(payload);
  }

  /** A commit that did not happen (rolled back): nothing of it will arrive. */
  forget(payload: string): void {
    this.payloads.delete(payload);
  }

  clear(): void {
    this.payloads.clear();
  }

  /** Whether `payload` is this store's own (and, for a journal head, settles the smaller ones). */
  isOwn(payload: string): boolean {
    if (this.tag !== '' && payload.endsWith(this.tag)) return true;
    const own = this.payloads.delete(payload);
    const head = Number(payload);
    if (Number.isSafeInteger(head)) {
      for (const earlier of this.payloads) if (Number(earlier) < head) this.payloads.delete(earlier);
    }
    return own;
  }
}
