import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createPglite, type Database, openDatabase } from '../db/driver';
import { JobSystem } from '../jobs/job-system';
import { seedDemoGrid } from '../seed/demo-archive';
import { seed } from '../seed/seed';
import { TEST_ADMIN_PASSWORD, TEST_OPERATOR_PASSWORD } from './constants';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set when TEST_DATABASE_URL is not. */
    pgliteTemplate: string | undefined;
    postgresTemplate: string | null;
  }
}

/**
 * The start-up seed as on PostgreSQL (no demo archive: each test makes the records it counts), plus
 * the demo grid, so tests have real grid nodes to place records and user groups in.
 */
async function prepare(database: Database, seedOptions: Parameters<typeof seed>[1]): Promise<void> {
  await database.migrate();
  await seed(database.db, seedOptions);
  await database.db.transaction((tx) => seedDemoGrid(tx));
  await JobSystem.install(database);
}

/**
 * Migrates and seeds once; each test file then starts from a copy (a PGlite dump, or a
 * PostgreSQL database created from a template) instead of running initdb and argon2 again.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const tmpDir = mkdtempSync(path.join(tmpdir(), 'meterdesk-test-'));
  const seedOptions = { adminPassword: TEST_ADMIN_PASSWORD, operatorPassword: TEST_OPERATOR_PASSWORD };
  const databaseUrl = process.env.TEST_DATABASE_URL;
  const templateName = databaseUrl ? `meterdesk_tpl_${process.pid}` : null;

  /** Leaves nothing behind: the dump's directory and the template database go, also after a failed setup. */
  const teardown = async () => {
    rmSync(tmpDir, { recursive: true, force: true });
    if (databaseUrl && templateName) {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`);
      await admin.end();
    }
  };

  try {
    // The harness copies PGlite's template only when TEST_DATABASE_URL names no PostgreSQL.
    if (!databaseUrl) {
      const pglite = await createPglite();
      const database = await openDatabase({ pglite });
      await prepare(database, seedOptions);
      const dump = await pglite.dumpDataDir('gzip');
      const dumpFile = path.join(tmpDir, 'pglite-template.tar.gz');
      writeFileSync(dumpFile, Buffer.from(await dump.arrayBuffer()));
      await database.close();
      project.provide('pgliteTemplate', dumpFile);
    }

    if (databaseUrl && templateName) {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${templateName}`);
      await admin.query(`CREATE DATABASE ${templateName}`);
      await admin.end();
      const url = new URL(databaseUrl);
      url.pathname = `/${templateName}`;
      const tpl = await openDatabase({ databaseUrl: url.toString() });
      await prepare(tpl, seedOptions);
      await tpl.close();
    }
    project.provide('postgresTemplate', templateName);
  } catch (err) {
    await teardown().catch(() => undefined);
    throw err;
  }
  return teardown;
}
