/**
 * Whether the PostgreSQL server is reachable, as the operator's log tells it (issue #25 part 2):
 * one line when it goes away, one when it is back, however many requests, pooled connections,
 * notification reconnects and journal retries fail in between (each used to log, or print a
 * stack, on its own).
 */
export class Availability {
  private awaySince: number | null = null;

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
    const message = error instanceof Error ? error.message : String(error);
    this.log(`the database at ${this.location} is unavailable (${message}); Hivewatch retries until it answers again`);
  }

  /** Something reached the server: ends an outage, if there was one. */
  reached(): void {
    if (this.awaySince === null) return;
    const seconds = Math.max(0, Math.round((this.now() - this.awaySince) / 1000));
    this.awaySince = null;
    this.log(`the database at ${this.location} is back (unavailable for about ${seconds} s)`);
  }
}
