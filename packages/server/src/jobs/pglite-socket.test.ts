import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/harness';
import { openPgliteSocket } from './pglite-socket';

describe('PGlite socket for the job system', () => {
  let t: TestApp;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestApp();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'meterdesk-socket-test-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens on a unix socket only the service user reaches, in DATA_DIR/run, and leaves nothing behind', async (context) => {
    const connection = t.database.connection;
    if (connection.kind !== 'pglite') return context.skip();
    const socket = await openPgliteSocket(connection.client, dataDir);
    const socketPath = path.join(dataDir, 'run', '.s.PGSQL.5432');
    expect(socket.connection.host).toBe(path.join(dataDir, 'run'));
    expect(statSync(path.join(dataDir, 'run')).mode & 0o777).toBe(0o700);
    expect(statSync(socketPath).mode & 0o777).toBe(0o600);

    const client = new pg.Client(socket.connection);
    await client.connect();
    const { rows } = await client.query<{ n: number }>('select count(*)::int as n from sys_user');
    expect(rows[0]?.n).toBeGreaterThan(0);
    await client.end();

    await socket.close();
    expect(existsSync(socketPath)).toBe(false);
  });

  it('uses a private temporary directory when PGlite has no data directory, and removes it', async (context) => {
    const connection = t.database.connection;
    if (connection.kind !== 'pglite') return context.skip();
    const socket = await openPgliteSocket(connection.client, undefined);
    expect(statSync(socket.connection.host).mode & 0o777).toBe(0o700);
    await socket.close();
    expect(existsSync(socket.connection.host)).toBe(false);
  });
});
