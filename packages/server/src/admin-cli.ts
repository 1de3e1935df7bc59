import { randomInt } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { passwordText } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { clearLoginFailures } from './auth/login-failures';
import { hashPassword } from './auth/password';
import { loadConfig } from './config';
import { type Db, openDatabase } from './db/driver';
import { sysSession, sysUser } from './db/schema';

const USAGE = `Usage (from the repository root, with the server's environment):
  npm run admin -- unlock <username>                   lift a lock, from every address
  npm run admin -- reset-password <username> [password]
      set a new password (printed when not given); the user must change it at the next login`;

const PASSWORD_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';
const generatePassword = () =>
  Array.from({ length: 14 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join('');

/** Runs one command; answers the exit code. Separate from the process so tests drive it on their database. */
export async function runAdmin(args: readonly string[], db: Db, out: (line: string) => void): Promise<number> {
  const [command, username, given] = args;
  if (!command || !username || !['unlock', 'reset-password'].includes(command)) {
    out(USAGE);
    return 2;
  }
  const [user] = await db.select({ id: sysUser.id }).from(sysUser).where(eq(sysUser.username, username));
  if (!user) {
    out(`No user "${username}".`);
    return 1;
  }

  if (command === 'unlock') {
    await db
      .update(sysUser)
      .set({ status: 'enabled', failedLogins: 0, lockedUntil: null })
      .where(eq(sysUser.id, user.id));
    await clearLoginFailures(db, username);
    out(`"${username}" is unlocked and enabled.`);
    return 0;
  }

  const password = given ?? generatePassword();
  if (!passwordText().safeParse(password).success) {
    out('The password must be 6-18 characters.');
    return 1;
  }
  await db.transaction(async (tx) => {
    await tx
      .update(sysUser)
      .set({ passwordHash: await hashPassword(password), mustChangePassword: true, updateTime: new Date() })
      .where(eq(sysUser.id, user.id));
    await tx.delete(sysSession).where(eq(sysSession.userId, user.id));
  });
  out(
    given
      ? `"${username}" has the new password; it must be changed at the next login.`
      : `"${username}" has the password ${password} ; it must be changed at the next login.`,
  );
  return 0;
}

/** The server's own configuration and driver: PGlite in DATA_DIR, or DATABASE_URL. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    await database.migrate();
    process.exitCode = await runAdmin(process.argv.slice(2), database.db, (line) => process.stdout.write(`${line}\n`));
  } finally {
    await database.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
