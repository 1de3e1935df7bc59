import type { Config } from '../config';
import { type DataDirHolder, DataDirLocked } from './data-dir-lock';
import { type Database, openDatabase } from './driver';

/**
 * The server's database for a command: PGlite in DATA_DIR, or DATABASE_URL, migrated. The PGlite
 * directory stays locked until it is closed (`db/data-dir-lock.ts`), and a lock held by the server
 * refuses the command: null, with the reason given to `out`. A module of its own, not the admin
 * command's: the seed command imported it from there, and its bundle then ran the admin command too.
 */
export async function openForCommand(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  holder: DataDirHolder,
  out: (line: string) => void,
): Promise<Database | null> {
  let database: Database;
  try {
    database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, holder });
  } catch (err) {
    if (!(err instanceof DataDirLocked)) throw err;
    out(
      err.holder === 'server'
        ? `The server is running on DATA_DIR ${err.dataDir} (pid ${err.pid}); stop it first, or run the command against PostgreSQL (a server on DATABASE_URL may stay up).`
        : `${err.message}; try again when it is done.`,
    );
    return null;
  }
  try {
    await database.migrate();
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}
