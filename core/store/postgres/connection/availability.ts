/**
 * Whether the PostgreSQL server is reachable, as the operator's log tells it:
 * one line when it goes away, one when it is back, however many requests, pooled connections,
 * notification reconnects and journal retries fail in between (each used to log, or print a
 * stack, on its own).
 *
 * A server shutting down ends its connections one by one, and a query on one it has not ended
 * yet still succeeds: that is no sign the outage is over. Only an answer after a connection was
 * opened since the outage began (`connected`) ends it; a server shutting down accepts none.
 */
export class Availability {
  private awaySince: number | null = null;
  /** A connection was opened since the outage began. */
  private connectedSince = false;

  constructor(
    private readonly location: string,
    private readonly log: (message: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get away(): boolean {
    return this.awaySince !== null;
  }

  /** Something failed because the server is away: said once per outage. */
  lost(error: unknown): void {
    if (this.awaySince !== null) return;
    this.awaySince = this.now();
    this.connectedSince = false;
    const message = error instanceof Error ? error.message : String(error);
    this.log(`the database at ${this.location} is unavailable (${message}); Hivewatch retries until it answers again`);
  }

  /** A new connection to the server was opened. */
  connected(): void {
    if (this.awaySince !== null) this.connectedSince = true;
  }

  /** A new connection answered (the LISTEN connection is back). */
  reconnected(): void {
    this.connected();
    this.reached();
  }

  /** Something reached the server: ends an outage, once a connection opened since it began has answered. */
  reached(): void {
    if (this.awaySince === null || !this.connectedSince) return;
    const seconds = Math.max(0, Math.round((this.now() - this.awaySince) / 1000));
    this.awaySince = null;
    this.log(`the database at ${this.location} is back (unavailable for about ${seconds} s)`);
  }
}
