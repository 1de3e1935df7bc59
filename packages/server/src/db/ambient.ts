import { AsyncLocalStorage } from 'node:async_hooks';
import type { Db, Tx } from './executor';

/** A request's transaction, while its handler runs, and what waits for its commit. */
interface Ambient {
  tx: Tx;
  open: boolean;
  afterCommit: (() => unknown)[];
}

const ambient = new AsyncLocalStorage<Ambient>();

/** The transaction the current request's handler runs in, while it is open; null elsewhere. */
export function openTransaction(): Tx | null {
  const current = ambient.getStore();
  return current?.open ? current.tx : null;
}

/**
 * The handle the services hold: the request's transaction while one is open, the database otherwise.
 * A service's own `transaction` inside it is a savepoint, so its change commits (or not) with the
 * request's operation log entry. Work started in the request that outlives the transaction (a timer,
 * a loop kicked on the way) falls back to the database once it has ended.
 */
export function ambientDb(root: Db): Db {
  return new Proxy(root, {
    get(target, prop) {
      const handle = openTransaction() ?? target;
      const value = Reflect.get(handle, prop, handle);
      return typeof value === 'function' ? value.bind(handle) : value;
    },
  });
}

/**
 * Runs `work` in one transaction that every `ambientDb` handle joins, then, once it has committed,
 * what `afterCommit` queued, outside it. Nothing queued runs when it rolls back.
 */
export async function inTransaction<T>(root: Db, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (openTransaction()) throw new Error('a request transaction is already open');
  const queued: (() => unknown)[] = [];
  const result = await root.transaction(async (tx) => {
    const state: Ambient = { tx, open: true, afterCommit: queued };
    try {
      return await ambient.run(state, () => work(tx));
    } finally {
      state.open = false;
    }
  });
  for (const next of queued) await ambient.exit(next);
  return result;
}

/**
 * What may only happen once a change is visible to others (a device told to fetch its commands, a
 * browser told to read again): after the request's transaction commits, before its answer; now
 * outside one. It handles its own failures: the change it follows has committed.
 */
export async function afterCommit(work: () => unknown): Promise<void> {
  const current = ambient.getStore();
  if (current?.open) current.afterCommit.push(work);
  else await work();
}

interface RawClient {
  query(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

/**
 * The driver's own client under a transaction (a pool client, or PGlite's transaction), for a library
 * that runs its own SQL and can be handed a connection (pg-boss's `db` option).
 */
export function rawClient(tx: Tx): RawClient {
  const client = (tx._.session as unknown as { client?: RawClient }).client;
  if (typeof client?.query !== 'function') throw new Error('the transaction has no client to run SQL on');
  return client;
}
