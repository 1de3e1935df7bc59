import { once } from 'node:events';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';

export interface Login {
  clientId: string;
  username: string | undefined;
  password: string | undefined;
}

/** A real Aedes on a random port, recording who logged in with what. */
export interface TestBroker {
  url: string;
  port: number;
  logins: Login[];
  close(): Promise<void>;
}

/** `unavailableLogins`: the first logins are refused "Server unavailable", as a restarting server's broker does. */
export async function startBroker(port = 0, { unavailableLogins = 0 } = {}): Promise<TestBroker> {
  const logins: Login[] = [];
  const aedes = await Aedes.createBroker({
    authenticate: (client, username, password, done) => {
      logins.push({ clientId: client.id, username, password: password?.toString() });
      if (logins.length <= unavailableLogins) done(Object.assign(new Error('unavailable'), { returnCode: 3 }), false);
      else done(null, true);
    },
  });
  const server: Server = createServer(aedes.handle);
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `mqtt://127.0.0.1:${actual}`,
    port: actual,
    logins,
    close: async () => {
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface Heard {
  topic: string;
  payload: Record<string, unknown>;
  retain: boolean;
}

/** The head-end's side of the broker: hears every device topic, sends commands and waits for answers. */
export interface HeadEnd {
  heard: Heard[];
  /** The first message that satisfies `match`, among those heard from index `since` on or still to come. */
  waitFor(match: (m: Heard) => boolean, since?: number, timeoutMs?: number): Promise<Heard>;
  /** Resolves once the broker has the command (PUBACK): whoever is subscribed then hears it. */
  send(kind: 'dcu' | 'meter', key: string, body: Record<string, unknown>): Promise<void>;
  /** Sends a command and resolves with its reply's payload. */
  ask(kind: 'dcu' | 'meter', key: string, body: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

let counter = 0;
export const newReqId = () => `req-${process.pid}-${++counter}`;
export const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

export async function connectHeadEnd(url: string): Promise<HeadEnd> {
  const client: MqttClient = await mqtt.connectAsync(url, { protocolVersion: 4, clientId: `head-end-${newReqId()}` });
  const heard: Heard[] = [];
  const waiters: { match: (m: Heard) => boolean; resolve: (m: Heard) => void }[] = [];
  client.on('message', (topic, payload, packet) => {
    const message = { topic, payload: JSON.parse(payload.toString()), retain: packet.retain };
    heard.push(message);
    for (const w of [...waiters]) {
      if (w.match(message)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(message);
      }
    }
  });
  await client.subscribeAsync('ami/#', { qos: 1 });
  const waitFor = (match: (m: Heard) => boolean, since = 0, timeoutMs = 20_000) => {
    const found = heard.slice(since).find(match);
    if (found) return Promise.resolve(found);
    return new Promise<Heard>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`nothing matching heard in ${timeoutMs} ms`)), timeoutMs);
      waiters.push({
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      });
    });
  };
  const send = async (kind: 'dcu' | 'meter', key: string, body: Record<string, unknown>) => {
    await client.publishAsync(`ami/${kind}/${key}/cmd`, JSON.stringify(body), { qos: 1 });
  };
  return {
    heard,
    waitFor,
    send,
    async ask(kind, key, body) {
      const reqId = (body.reqId as string | undefined) ?? newReqId();
      // A reqId asked again must get a new reply, not the one heard before.
      const reply = waitFor((m) => m.topic === `ami/${kind}/${key}/reply` && m.payload.reqId === reqId, heard.length);
      await send(kind, key, { deadline: inAMinute(), ...body, reqId });
      return (await reply).payload;
    },
    close: () => client.endAsync(),
  };
}

/** Resolves when `condition` holds, checking every few ms: for counters, never as proof that nothing happened. */
export async function until(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
