import type pg from 'pg';

/**
 * Runs `work` in one transaction on a client of `pool`: COMMIT when it returns, ROLLBACK (and
 * rethrow) when it or the COMMIT throws. `onRollback` runs after a rollback, for state that
 * mirrors what the transaction wrote (a writer's runs in memory). `begin` opens it: a BEGIN that
 * carries its transaction modes saves the round trip of a separate SET TRANSACTION.
 *
 * The BEGIN travels with the work's first statement when that one has no parameters (a journal
 * batch, statement-batch.ts): one round trip fewer per transaction, which on a busy machine is a
 * wait for the server's backend to be scheduled. A transaction whose work
 * sent nothing is neither begun nor committed.
 *
 * Work whose last statement text ends with `WITH_COMMIT` commits in that round trip (a journal
 * batch, statement-batch.ts): once it succeeded nothing more is sent. Should it fail, PostgreSQL
 * skips the rest of the text, COMMIT included, and the ROLLBACK goes out as for any failure.
 */
export const WITH_COMMIT = ';\nCOMMIT';

export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>, onRollback?: () => void, begin = 'BEGIN'): Promise<T> {
  const client = await pool.connect();
  const opening = new OpeningClient(client, begin);
  try {
    const result = await work(opening.client);
    if (opening.begun && !opening.committed) await client.query('COMMIT');
    return result;
  } catch (error) {
    // A connection that broke cannot roll back; the server ends its transaction anyway.
    if (opening.begun && !opening.committed) await client.query('ROLLBACK').catch(() => undefined);
    onRollback?.();
    throw error;
  } finally {
    client.release();
  }
}

/** The pool client as `work` sees it: its first statement opens the transaction. */
class OpeningClient {
  begun = false;
  /** A statement text that ends with WITH_COMMIT succeeded: the transaction is over. */
  committed = false;
  readonly client: pg.PoolClient;

  constructor(
    private readonly target: pg.PoolClient,
    private readonly begin: string,
  ) {
    this.client = new Proxy(target, {
      get: (object, property, receiver) => (property === 'query' ? this.query : (Reflect.get(object, property, receiver) as unknown)),
    });
  }

  private readonly query = async (...args: unknown[]): Promise<unknown> => {
    const answer = await this.open(args);
    if (typeof args[0] === 'string' && args[0].endsWith(WITH_COMMIT)) this.committed = true;
    return answer;
  };

  private async open(args: unknown[]): Promise<unknown> {
    const send = this.target.query.bind(this.target) as (...a: unknown[]) => Promise<unknown>;
    if (this.begun) return send(...args);
    this.begun = true;
    const [text, params] = args;
    const simple = typeof text === 'string' && (params === undefined || (Array.isArray(params) && params.length === 0));
    if (!simple) {
      await send(this.begin);
      return send(...args);
    }
    // Marked begun before the send: should it fail midway, the ROLLBACK still goes out.
    const answers = (await send(`${this.begin};\n${text}`)) as pg.QueryResult[];
    const rest = answers.slice(1);
    return rest.length === 1 ? rest[0] : rest;
  }
}
