import { describe, expect, it } from 'vitest';
import { Availability } from './availability.js';

describe('Availability (the outage lines of a PostgreSQL store’s log)', () => {
  it('says once that the server went away and once that it is back, however many failures and answers come between', () => {
    const lines: string[] = [];
    let now = 0;
    const availability = new Availability(
      'postgres://db/x',
      (line) => lines.push(line),
      () => now,
    );
    availability.reached();
    availability.lost(new Error('terminating connection due to administrator command'));
    // A server shutting down still answers on a connection it has not ended yet: not "back".
    now = 10;
    availability.reached();
    availability.lost(new Error('connect ECONNREFUSED'));
    now = 4_000;
    availability.connected();
    availability.lost(new Error('the database system is starting up'));
    availability.reached();
    availability.reached();
    expect(lines).toEqual([
      'the database at postgres://db/x is unavailable (terminating connection due to administrator command); Hivewatch retries until it answers again',
      'the database at postgres://db/x is back (unavailable for about 4 s)',
    ]);
    expect(availability.away).toBe(false);
  });
});
