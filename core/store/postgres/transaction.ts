import type pg from 'pg';

/**
 * Runs `work` in one transaction on a client of `pool`: COMMIT when it returns, ROLLBACK (and
 * rethrow) when it or the COMMIT throws. `onRollback` runs after a rollback, for state that
 * mirrors what the transaction wrote (a writer's runs in memory). `begin` opens it: a BEGIN that
 * carries its transaction modes saves the round trip of a separate SET TRANSACTION.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  onRollback?: () => void,
  begin = 'BEGIN',
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that broke cannot roll back; the server ends its transaction anyway.
    await client.query('ROLLBACK').catch(() => undefined);
    onRollback?.();
    throw error;
  } finally {
    client.release();
  }
}
