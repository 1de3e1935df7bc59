import { randomBytes } from 'node:crypto';
import { afterAll } from 'vitest';
import { loadConfig } from '../config';
import { SecretBox } from '../crypto/secret-box';
import { createPglite, type Database, openDatabase } from '../db/driver';
import { seed } from '../seed/seed';

/**
 * Databases as a first start finds them (migrated, nothing seeded) and the seed main.ts runs at
 * start-up with an environment; each database is closed after the file's tests.
 */
export function firstStarts() {
  const box = new SecretBox(randomBytes(32));
  const opened: Database[] = [];
  afterAll(async () => {
    for (const database of opened) await database.close();
  });
  return {
    box,
    emptyDatabase: async () => {
      const database = await openDatabase({ pglite: await createPglite() });
      opened.push(database);
      await database.migrate();
      return database;
    },
    /** What main.ts does at start-up with the environment `env`. */
    start: (database: Database, env: NodeJS.ProcessEnv) =>
      seed(database.db, { adminPassword: 'Admin@123', demo: { when: loadConfig(env).demoArchive, box } }),
  };
}
