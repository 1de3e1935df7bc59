import { pbkdf2Sync, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DEVICE_PUBLISHED, deviceTopic, type Fleet } from '@meterdesk/contracts';

/**
 * The embedded broker's device ACL (`device-policy.ts`) written for a broker the operator runs:
 * Mosquitto's dynamic security plugin and acl_file syntax, EMQX's built-in database and file
 * authorization. Generated from the same fleet the simulator gets, so both see the same devices.
 */

export interface BrokerUser {
  username: string;
  password: string;
}

/** What one device may do: publish its channels and receive its commands, for itself and (a DCU) its meters. */
export interface DeviceAccess extends BrokerUser {
  publish: string[];
  subscribe: string[];
}

/** Every device that connects, with its exact topics (no wildcards). */
export function deviceAccess(fleet: Fleet): DeviceAccess[] {
  const topicsOf = (targets: { kind: 'dcu' | 'meter'; key: string }[]) => ({
    publish: targets.flatMap((d) => DEVICE_PUBLISHED.map((channel) => deviceTopic(d.kind, d.key, channel))),
    subscribe: targets.map((d) => deviceTopic(d.kind, d.key, 'cmd')),
  });
  const withLogin = (credentials: BrokerUser | undefined, targets: { kind: 'dcu' | 'meter'; key: string }[]) =>
    credentials ? [{ username: credentials.username, password: credentials.password, ...topicsOf(targets) }] : [];
  return [
    ...fleet.dcus.flatMap((d) =>
      withLogin(d.credentials, [
        { kind: 'dcu', key: d.dcuNo },
        ...d.meters.map((m) => ({ kind: 'meter' as const, key: m.devAddr })),
      ]),
    ),
    ...fleet.direct.flatMap((m) => withLogin(m.credentials, [{ kind: 'meter', key: m.devAddr }])),
  ];
}

/** The server's own broker user reads and writes every device topic and publishes the browser topics. */
const SERVER_PUBLISH = ['ami/#', 'notice/#', 'progress/#', 'live/#'];
const SERVER_SUBSCRIBE = ['ami/#'];
/** A browser user follows only its own notices (job progress needs the server's check: see docs/operations.md). */
const BROWSER_PATTERN = 'notice/%u/#';

/**
 * PBKDF2-SHA512 as Mosquitto (and EMQX's `pbkdf2`) check it. Device secrets are 192 random bits, so
 * stretching adds nothing against guessing; Mosquitto's default count keeps 10,000 devices quick.
 */
export const PBKDF2_ITERATIONS = 101;
const pbkdf2 = (password: string, salt: Buffer) => pbkdf2Sync(password, salt, PBKDF2_ITERATIONS, 64, 'sha512');

/**
 * Mosquitto's dynamic security plugin file: usernames may hold `:` there (its password_file cannot).
 * Mosquitto 2.0's plugin substitutes no `%u` in its ACLs, so browser users, if they connect to
 * Mosquitto, each need their own role (docs/operations.md).
 */
export function mosquittoDynamicSecurity(devices: readonly DeviceAccess[], server: BrokerUser): object {
  const client = (user: BrokerUser, rolename: string) => {
    const salt = randomBytes(12);
    return {
      username: user.username,
      password: pbkdf2(user.password, salt).toString('base64'),
      salt: salt.toString('base64'),
      iterations: PBKDF2_ITERATIONS,
      roles: [{ rolename }],
    };
  };
  const acl = (acltype: string, topic: string) => ({ acltype, topic, priority: 0, allow: true });
  return {
    defaultACLAccess: { publishClientSend: false, publishClientReceive: false, subscribe: false, unsubscribe: true },
    clients: [client(server, 'meterdesk-server'), ...devices.map((d) => client(d, `device ${d.username}`))],
    groups: [],
    roles: [
      {
        rolename: 'meterdesk-server',
        acls: [
          ...SERVER_PUBLISH.map((t) => acl('publishClientSend', t)),
          ...SERVER_SUBSCRIBE.flatMap((t) => [acl('subscribePattern', t), acl('publishClientReceive', t)]),
        ],
      },
      ...devices.map((d) => ({
        rolename: `device ${d.username}`,
        acls: [
          ...d.publish.map((t) => acl('publishClientSend', t)),
          ...d.subscribe.flatMap((t) => [acl('subscribeLiteral', t), acl('publishClientReceive', t)]),
        ],
      })),
    ],
  };
}

/** Mosquitto acl_file syntax: the same rules for a Mosquitto that authenticates devices otherwise. */
export function mosquittoAclFile(devices: readonly DeviceAccess[], server: BrokerUser): string {
  const lines = ['# Meterdesk device ACL (npm run admin -- broker-acl). Devices: exact topics, no wildcards.', ''];
  lines.push(`user ${server.username}`);
  for (const t of SERVER_PUBLISH) lines.push(`topic ${SERVER_SUBSCRIBE.includes(t) ? 'readwrite' : 'write'} ${t}`);
  lines.push('');
  for (const d of devices) {
    lines.push(`user ${d.username}`, ...d.publish.map((t) => `topic write ${t}`));
    lines.push(...d.subscribe.map((t) => `topic read ${t}`), '');
  }
  lines.push('# Browser users: their own notices only.', `pattern read ${BROWSER_PATTERN}`, '');
  return lines.join('\n');
}

/** EMQX 5 built-in database import (`import_users`), for an authenticator set to pbkdf2 / sha512 / 101 / 64. */
export function emqxUsers(devices: readonly DeviceAccess[], server: BrokerUser): object[] {
  return [server, ...devices].map((user) => {
    // EMQX hashes with the salt as it is stored: a hex string, used as its characters.
    const salt = randomBytes(16).toString('hex');
    return {
      user_id: user.username,
      password_hash: pbkdf2(user.password, Buffer.from(salt)).toString('hex'),
      salt,
      is_superuser: false,
    };
  });
}

/** EMQX 5 file authorization (acl.conf): Erlang terms, first match wins, everything else denied. */
export function emqxAcl(devices: readonly DeviceAccess[], server: BrokerUser): string {
  const list = (topics: readonly string[]) => `[${topics.map((t) => `{eq, ${JSON.stringify(t)}}`).join(', ')}]`;
  const lines = ['%% Meterdesk device ACL (npm run admin -- broker-acl).'];
  lines.push(
    `{allow, {username, ${JSON.stringify(server.username)}}, publish, ${JSON.stringify(SERVER_PUBLISH).replace(/,/g, ', ')}}.`,
    `{allow, {username, ${JSON.stringify(server.username)}}, subscribe, ${JSON.stringify(SERVER_SUBSCRIBE)}}.`,
  );
  for (const d of devices) {
    lines.push(`{allow, {username, ${JSON.stringify(d.username)}}, publish, ${list(d.publish)}}.`);
    lines.push(`{allow, {username, ${JSON.stringify(d.username)}}, subscribe, ${list(d.subscribe)}}.`);
  }
  // biome-ignore lint/suspicious/noTemplateCurlyInString: EMQX's own placeholder, not a JavaScript one.
  lines.push('{allow, all, subscribe, ["notice/${username}/#"]}.', '{deny, all}.', '');
  return lines.join('\n');
}

export const BROKER_ACL_FILES = {
  dynamicSecurity: 'dynamic-security.json',
  aclFile: 'acl_file',
  emqxUsers: 'emqx-users.json',
  emqxAcl: 'emqx-acl.conf',
} as const;

/** Writes the four files into `dir` (made 0700), each mode 600: they name every device and hold password hashes. */
export function writeBrokerAcl(
  dir: string,
  fleet: Fleet,
  server: BrokerUser,
): Record<keyof typeof BROKER_ACL_FILES, string> {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const devices = deviceAccess(fleet);
  const contents: Record<keyof typeof BROKER_ACL_FILES, string> = {
    dynamicSecurity: `${JSON.stringify(mosquittoDynamicSecurity(devices, server), null, 1)}\n`,
    aclFile: mosquittoAclFile(devices, server),
    emqxUsers: `${JSON.stringify(emqxUsers(devices, server), null, 1)}\n`,
    emqxAcl: emqxAcl(devices, server),
  };
  const written = {} as Record<keyof typeof BROKER_ACL_FILES, string>;
  for (const [name, file] of Object.entries(BROKER_ACL_FILES) as [keyof typeof BROKER_ACL_FILES, string][]) {
    const full = path.join(dir, file);
    writeFileSync(full, contents[name], { mode: 0o600 });
    chmodSync(full, 0o600);
    written[name] = full;
  }
  return written;
}
