import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** What node-postgres needs to reach PGlite through the socket (host is the socket's directory). */
export interface SocketConnection {
  host: string;
  port: number;
  database: string;
  user: string;
}

export interface PgliteSocket {
  connection: SocketConnection;
  /** How many socket messages wait for the session now (drizzle holds it); tests watch it. */
  readonly waiting: number;
  close(): Promise<void>;
}

const PORT = 5432;
// A unix socket path is limited to about 104–108 bytes depending on the platform.
const MAX_SOCKET_PATH = 100;
const Q = 0x51; // Query (simple protocol)
const S = 0x53; // Sync (end of an extended-protocol exchange)
const X = 0x58; // Terminate

/**
 * PGlite is one session. pglite-socket runs each protocol message under `runExclusive`, which
 * takes PGlite's query lock only; drizzle's transactions hold PGlite's transaction lock, so
 * without this gate a socket message could run inside a drizzle transaction (and be rolled back
 * with it), and a drizzle query could run between a socket client's Parse and its Sync.
 *
 * The gate makes a socket exchange take the transaction lock too, from its first message until
 * the exchange ends (Query, Sync or Terminate) with no transaction left open, so the two clients
 * take turns exchange by exchange, never statement by statement.
 */
class SessionGate {
  private release: (() => void) | null = null;
  private lastType = 0;
  waiting = 0;

  constructor(private readonly client: PGlite) {}

  /** The PGlite the socket server sees: the real one, with its two entry points gated. */
  guarded(): PGlite {
    return new Proxy(this.client, {
      get: (target, prop) => {
        if (prop === 'runExclusive') return <T>(fn: () => Promise<T>) => this.run(fn);
        if (prop === 'execProtocolRawStream')
          return (message: Uint8Array, options: unknown) => {
            this.lastType = message[0] ?? 0;
            return target.execProtocolRawStream(message, options as never);
          };
        if (prop === 'exec')
          // pglite-socket rolls back a dropped client's transaction; the gate holds the lock then.
          return async (query: string) => {
            this.unlock();
            return target.exec(query);
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }

  private async run<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.release) await this.lock();
    try {
      return await this.client.runExclusive(fn);
    } finally {
      // A startup message has no type byte: its first byte is the high byte of its length, 0.
      const exchangeEnded = [Q, S, X, 0].includes(this.lastType);
      if (exchangeEnded && !this.client.isInTransaction()) this.unlock();
    }
  }

  private lock(): Promise<void> {
    this.waiting += 1;
    return new Promise((locked) => {
      void this.client._runExclusiveTransaction(
        () =>
          new Promise<void>((release) => {
            this.waiting -= 1;
            this.release = release;
            locked();
          }),
      );
    });
  }

  unlock(): void {
    const release = this.release;
    this.release = null;
    release?.();
  }
}

function socketDirectory(dataDir: string | undefined): { dir: string; temporary: boolean } {
  if (dataDir) {
    const dir = path.join(dataDir, 'run');
    if (path.join(dir, `.s.PGSQL.${PORT}`).length <= MAX_SOCKET_PATH) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      chmodSync(dir, 0o700);
      return { dir, temporary: false };
    }
  }
  return { dir: mkdtempSync(path.join(os.tmpdir(), 'meterdesk-')), temporary: true };
}

/**
 * Lets a PostgreSQL client (pg-boss) use the app's PGlite through a unix socket in a directory
 * only the service user can enter (DATA_DIR/run, or a private temporary one), socket mode 0600.
 * One connection: the client's pool must have `max: 1` and keep its connection (no idle close),
 * because pglite-socket's queue waits for the handler that last ran while a transaction is open.
 */
export async function openPgliteSocket(client: PGlite, dataDir: string | undefined): Promise<PgliteSocket> {
  const { dir, temporary } = socketDirectory(dataDir);
  const socketPath = path.join(dir, `.s.PGSQL.${PORT}`);
  rmSync(socketPath, { force: true });
  const gate = new SessionGate(client);
  const server = new PGLiteSocketServer({ db: gate.guarded(), path: socketPath, maxConnections: 1 });
  await server.start();
  chmodSync(socketPath, 0o600);
  return {
    connection: { host: dir, port: PORT, database: 'postgres', user: 'postgres' },
    get waiting() {
      return gate.waiting;
    },
    close: async () => {
      await server.stop();
      gate.unlock();
      rmSync(temporary ? dir : socketPath, { recursive: true, force: true });
    },
  };
}
