import { createServer } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retainedByTopic } from './retained';

/** A bare Aedes on the wrapped persistence, over TCP, as devices reach the embedded broker. */
describe('retained messages by topic', () => {
  let aedes: Aedes;
  let server: ReturnType<typeof createServer>;
  let url: string;

  beforeAll(async () => {
    aedes = await Aedes.createBroker({ persistence: retainedByTopic() });
    server = createServer(aedes.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    url = `mqtt://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const device = await mqtt.connectAsync(url, { protocolVersion: 4 });
    for (let i = 0; i < 50; i++)
      await device.publishAsync(`ami/meter/M${i}/status`, JSON.stringify({ online: i % 2 === 0 }), {
        qos: 1,
        retain: true,
      });
    // An empty retained message clears the topic's.
    await device.publishAsync('ami/meter/M7/status', '', { qos: 1, retain: true });
    await device.endAsync();
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => aedes.close(() => resolve()));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** What a new subscriber to `topics` is handed on subscribing (retained messages only: nobody publishes meanwhile). */
  const handed = async (topics: string[], count: number) => {
    const client = await mqtt.connectAsync(url, { protocolVersion: 4 });
    const got: string[] = [];
    client.on('message', (topic, payload, packet) => {
      if (packet.retain) got.push(`${topic} ${payload.toString()}`);
    });
    await client.subscribeAsync(topics, { qos: 0 });
    await expect.poll(() => got.length, { timeout: 20_000 }).toBe(count);
    await client.endAsync();
    return got.sort();
  };

  it('hands an exact subscription its topic’s retained message, and none for a topic without one', async () => {
    expect(await handed(['ami/meter/M3/status', 'ami/meter/M4/status', 'ami/meter/none/status'], 2)).toEqual([
      'ami/meter/M3/status {"online":false}',
      'ami/meter/M4/status {"online":true}',
    ]);
    expect(await handed(['ami/meter/M7/status', 'ami/meter/M8/status'], 1)).toEqual([
      'ami/meter/M8/status {"online":true}',
    ]);
  });

  it('hands a wildcard subscription every retained message it matches, as Aedes does', async () => {
    const all = await handed(['ami/meter/+/status'], 49);
    expect(all).toContain('ami/meter/M49/status {"online":false}');
    expect(all.some((m) => m.startsWith('ami/meter/M7/'))).toBe(false);
  });
});
