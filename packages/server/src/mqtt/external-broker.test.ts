import { createServer, type Server } from 'node:net';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueName } from '../test/unique';
import { type Broker, connectExternalBroker, durableClientId } from './broker';

/**
 * The server as a client of a broker the operator runs: Mosquitto where TEST_MQTT_URL names one, else
 * an Aedes of the test's own over TCP (a broker the server does not run).
 */
describe('external broker: what devices deliver is not lost while the server is away', () => {
  let url: string;
  let standalone: { aedes: Aedes; server: Server } | null = null;
  let broker: Broker;
  let device: mqtt.MqttClient;
  const prefix = uniqueName('server');

  beforeAll(async () => {
    if (process.env.TEST_MQTT_URL) url = process.env.TEST_MQTT_URL;
    else {
      const aedes = await Aedes.createBroker();
      const server = createServer(aedes.handle);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      url = `mqtt://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
      standalone = { aedes, server };
    }
    broker = await connectExternalBroker(url, { clientId: prefix, endSessionsOnClose: true });
    device = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 });
  });
  afterAll(async () => {
    await device?.endAsync();
    await broker?.close();
    if (standalone) {
      const { aedes, server } = standalone;
      await new Promise<void>((resolve) => aedes.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  /** A handler that records each message's text and settles as `outcome` says. */
  const recorder = (outcome: (text: string, seen: number) => 'stored' | 'failed' = () => 'stored') => {
    const heard: string[] = [];
    const waiters: { count: number; resolve: () => void }[] = [];
    const handler = async (_topic: string, payload: Buffer) => {
      const text = payload.toString();
      const seen = heard.filter((h) => h === text).length;
      heard.push(text);
      for (const w of waiters.filter((w) => heard.length >= w.count)) w.resolve();
      if (outcome(text, seen) === 'failed') throw new Error('the database is away');
    };
    const heardAtLeast = (count: number) =>
      heard.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }));
    return { heard, handler, heardAtLeast };
  };

  it('hands over what was published while the server was stopped once it listens again', async () => {
    const filter = `${uniqueName('test')}/+/data`;
    const topic = filter.replace('+', 'dcu-1');
    const first = recorder();
    const stop = await broker.subscribe(filter, first.handler, { acknowledgeWhenHandled: true });
    await device.publishAsync(topic, 'before the stop', { qos: 1 });
    await first.heardAtLeast(1);
    await stop();

    await device.publishAsync(topic, 'while the server is away', { qos: 1 });
    const second = recorder();
    await broker.subscribe(filter, second.handler, { acknowledgeWhenHandled: true });
    await second.heardAtLeast(1);
    expect(first.heard).toEqual(['before the stop']);
    expect(second.heard).toEqual(['while the server is away']);
  });

  it('gets a message again when its handler failed, and the one after it only then', async () => {
    const filter = `${uniqueName('test')}/+/data`;
    const topic = filter.replace('+', 'dcu-2');
    const flaky = recorder((text, seen) => (text === 'first' && seen === 0 ? 'failed' : 'stored'));
    await broker.subscribe(filter, flaky.handler, { acknowledgeWhenHandled: true });
    await device.publishAsync(topic, 'first', { qos: 1 });
    await device.publishAsync(topic, 'second', { qos: 1 });
    await flaky.heardAtLeast(3);
    // The failed message came again (after the session reconnected), before or with the next one,
    // and each was stored once.
    expect(flaky.heard.filter((h) => h === 'first')).toHaveLength(2);
    expect(flaky.heard.slice(1).sort()).toEqual(['first', 'second']);
  });

  it('names each durable session after the prefix and the filter', () => {
    expect(durableClientId('meterdesk-server', 'ami/+/+/data')).toBe('meterdesk-server-ami-data');
    expect(durableClientId('meterdesk-server', 'ami/+/+/event')).toBe('meterdesk-server-ami-event');
  });
});
