import { randomInt } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { passwordText } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { clearLoginFailures } from './auth/login-failures';
import { hashPassword } from './auth/password';
import { type Config, loadConfig } from './config';
import { SecretBox } from './crypto/secret-box';
import { resolveSecretKey } from './crypto/secret-key';
import type { Db } from './db/driver';
import { openForCommand } from './db/open-for-command';
import { sysSession, sysUser } from './db/schema';
import { buildFleet } from './headend/fleet';
import { type BrokerUser, writeBrokerAcl } from './mqtt/broker-acl';
import { DeviceCredentials } from './mqtt/device-credentials';

const USAGE = `Usage (from the repository root, with the server's environment):
  npm run admin -- unlock <username>                   lift a lock, from every address
  npm run admin -- reset-password <username> [password]
      set a new password (printed when not given); the user must change it at the next login
  npm run admin -- broker-acl --out DIR [--server-user NAME]
      write the device ACL and credentials for Mosquitto (dynamic-security.json, acl_file) and
      EMQX (emqx-users.json, emqx-acl.conf); the server's broker user comes from MQTT_URL
      (mqtt://user:password@host) or --server-user (default meterdesk, password printed)`;

const PASSWORD_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZabcdefghjkmnpqrstuvwxyz23456789';
const generatePassword = () =>
  Array.from({ length: 14 }, () => PASSWORD_ALPHABET[randomInt(PASSWORD_ALPHABET.length)]).join('');

/** What a command may need beyond the database: the key of sealed secrets and the broker URL. */
export interface AdminContext {
  secrets?: () => SecretBox;
  mqttUrl?: string | undefined;
}

/** Runs one command; answers the exit code. Separate from the process so tests drive it on their database. */
export async function runAdmin(
  args: readonly string[],
  db: Db,
  out: (line: string) => void,
  context: AdminContext = {},
): Promise<number> {
  if (args[0] === 'broker-acl') return brokerAcl(args.slice(1), db, out, context);
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

/** The server's broker user: the one in MQTT_URL, else `serverUser` with a new password (printed). */
function serverBrokerUser(mqttUrl: string | undefined, serverUser: string | undefined): BrokerUser & { made: boolean } {
  const url = mqttUrl ? new URL(mqttUrl) : null;
  if (url?.username && url.password && !serverUser) {
    return { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password), made: false };
  }
  return { username: serverUser ?? 'meterdesk', password: generatePassword(), made: true };
}

async function brokerAcl(
  args: readonly string[],
  db: Db,
  out: (line: string) => void,
  context: AdminContext,
): Promise<number> {
  let flags: { out?: string | undefined; 'server-user'?: string | undefined };
  try {
    flags = parseArgs({
      args: [...args],
      options: { out: { type: 'string' }, 'server-user': { type: 'string' } },
      strict: true,
    }).values;
  } catch {
    flags = {};
  }
  if (!flags.out || !context.secrets) {
    out(USAGE);
    return 2;
  }
  const fleet = await buildFleet(db, new DeviceCredentials(db, context.secrets()));
  const server = serverBrokerUser(context.mqttUrl, flags['server-user']);
  const files = writeBrokerAcl(path.resolve(flags.out), fleet, server);
  const devices = fleet.dcus.length + fleet.direct.length;
  out(`Wrote the rules of ${devices} devices and the server user "${server.username}":`);
  for (const file of Object.values(files)) out(`  ${file}`);
  if (server.made) {
    out(
      `The server's broker password is ${server.password} ; start the server with MQTT_URL=mqtt://${server.username}:${server.password}@<broker host>:1883`,
    );
  }
  out('See docs/operations.md (Mosquitto and EMQX) for the broker configuration that reads them.');
  return 0;
}

/** One command on the server's database (`openForCommand`). */
export async function runAdminOn(
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'secretKey' | 'mqttUrl'>>,
  args: readonly string[],
  out: (line: string) => void,
): Promise<number> {
  const database = await openForCommand(config, 'admin command', out);
  if (!database) return 1;
  const secrets = () => new SecretBox(resolveSecretKey({ secretKey: config.secretKey, dataDir: config.dataDir }));
  try {
    return await runAdmin(args, database.db, out, { secrets, mqttUrl: config.mqttUrl });
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  process.exitCode = await runAdminOn(loadConfig(), process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
