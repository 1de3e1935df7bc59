import { type Fleet, OBIS } from '@meterdesk/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fleetFromFlags } from './flags';
import { type Simulator, type SimulatorOptions, startSimulator } from './simulator';
import { connectHeadEnd, type HeadEnd, inAMinute, startBroker, type TestBroker, until } from './test/broker';

const FAST = { min: 5, median: 10, max: 30 };
const QUIET = { latency: FAST, powerOutagesPerDay: 0, coverOpensPerDay: 0, heartbeatSec: 3600 };
const serial = { op: 'get', items: [{ obis: OBIS.serialNumber, classId: 1, attribute: 2 }] };

describe('fault knobs', () => {
  let broker: TestBroker;
  let head: HeadEnd;
  const running: Simulator[] = [];
  const start = (options: Omit<SimulatorOptions, 'url'>) => {
    const sim = startSimulator({ url: broker.url, ...options });
    running.push(sim);
    return sim;
  };

  beforeEach(async () => {
    broker = await startBroker();
    head = await connectHeadEnd(broker.url);
  });
  afterEach(async () => {
    await Promise.all(running.splice(0).map((s) => s.stop()));
    await head.close();
    await broker.close();
  });

  it('takes the same devices offline for the same seed, and others for another seed', async () => {
    const fleet = fleetFromFlags({ dcus: 2, metersPerDcu: 50, direct: 10, seed: 3, prefix: 'O' });
    const keys = [
      ...fleet.dcus.flatMap((d) => [d.dcuNo, ...d.meters.map((m) => m.devAddr)]),
      ...fleet.direct.map((m) => m.devAddr),
    ];
    const offlineOf = (sim: Simulator) => keys.filter((k) => !sim.device(k).state().online);
    const a = start({ fleet, seed: 3, knobs: { ...QUIET, offline: 0.2 } });
    const offline = offlineOf(a);
    await a.stop();
    const b = start({ fleet, seed: 3, knobs: { ...QUIET, offline: 0.2 } });
    expect(offlineOf(b)).toEqual(offline);
    await b.stop();
    expect(offline.length).toBeGreaterThan(5);
    expect(offline.length).toBeLessThan(50);
    const c = start({ fleet, seed: 4, knobs: { ...QUIET, offline: 0.2 } });
    expect(offlineOf(c)).not.toEqual(offline);
    // An offline meter behind an online DCU says so on its status and answers nothing.
    await c.ready;
    const silentMeter = fleet.dcus
      .flatMap((d) => d.meters)
      .find(
        (m) =>
          !c.device(m.devAddr).state().online && c.device(m.devAddr.replace(/M(\d{4})\d{4}$/, 'D$1')).state().online,
      );
    expect(silentMeter).toBeDefined();
    await head.waitFor((m) => m.topic === `ami/meter/${silentMeter!.devAddr}/status` && m.payload.online === false);
  });

  it('loses the same commands and replies for the same seed', async () => {
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 30, seed: 5, prefix: 'L' });
    const meters = fleet.dcus[0]!.meters.map((m) => m.devAddr);
    const answered = async (sim: Simulator) => {
      await sim.ready;
      const since = head.heard.length;
      for (const [i, addr] of meters.entries()) {
        head.send('meter', addr, { reqId: `loss-${i}`, deadline: inAMinute(), ...serial });
      }
      await until(() => {
        const s = sim.stats();
        return s.droppedCommands + s.droppedReplies + s.repliesSent === meters.length;
      });
      const stats = sim.stats();
      await sim.stop();
      const ids = head.heard
        .slice(since)
        .filter((m) => m.topic.endsWith('/reply'))
        .map((m) => m.payload.reqId as string)
        .sort();
      return { ids, lostIn: stats.droppedCommands, lostOut: stats.droppedReplies };
    };
    const first = await answered(start({ fleet, seed: 5, knobs: { ...QUIET, loss: 0.3 } }));
    const second = await answered(start({ fleet, seed: 5, knobs: { ...QUIET, loss: 0.3 } }));
    expect(second).toEqual(first);
    expect(first.lostIn).toBeGreaterThan(0);
    expect(first.lostOut).toBeGreaterThan(0);
    expect(first.ids.length).toBe(meters.length - first.lostIn - first.lostOut);
  });

  it('answers busy for the busy share of commands', async () => {
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 40, seed: 6, prefix: 'B' });
    const sim = start({ fleet, seed: 6, knobs: { ...QUIET, busy: 0.5 } });
    await sim.ready;
    const codes = await Promise.all(
      fleet.dcus[0]!.meters.map((m) => head.ask('meter', m.devAddr, serial).then((r) => r.code)),
    );
    const busy = codes.filter((c) => c === '91').length;
    expect(busy).toBeGreaterThan(5);
    expect(busy).toBeLessThan(35);
    expect(codes.filter((c) => c !== '91').every((c) => c === '00')).toBe(true);
    sim.setKnobs({ busy: 0 });
    const after = await Promise.all(
      fleet.dcus[0]!.meters.map((m) => head.ask('meter', m.devAddr, serial).then((r) => r.code)),
    );
    expect(after.every((c) => c === '00')).toBe(true);
  });

  it('executes a reqId asked again when told not to de-duplicate, and counts it', async () => {
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 1, seed: 7, prefix: 'R' });
    const meter = fleet.dcus[0]!.meters[0]!.devAddr;
    const sim = start({ fleet, seed: 7, knobs: { ...QUIET, dedupe: false } });
    await sim.ready;
    const relay = { reqId: 'again-1', op: 'action', items: [{ obis: OBIS.externalRelay, classId: 70, attribute: 2 }] };
    expect((await head.ask('meter', meter, relay)).code).toBe('00');
    expect((await head.ask('meter', meter, { ...relay, attempt: 2 })).code).toBe('00');
    expect(sim.executions('again-1')).toBe(2);
    expect(sim.stats()).toMatchObject({ executed: 1, executedTwice: 1, replayed: 0 });
  });

  it('counts the readings it sends by key when told to: a range read again is sent again', async () => {
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 1, seed: 8, prefix: 'K' });
    const meter = fleet.dcus[0]!.meters[0]!.devAddr;
    const sim = start({ fleet, seed: 8, knobs: QUIET, countReadings: true });
    await sim.ready;
    const range = { from: '2025-01-01T00:15:00Z', to: '2025-01-01T01:00:00Z' };
    const read = (reqId: string) =>
      head.ask('meter', meter, {
        reqId,
        op: 'get',
        items: [{ obis: OBIS.loadProfile, classId: 7, attribute: 2, value: range }],
      });
    await read('rows-1');
    expect(sim.stats()).toMatchObject({ readingsSent: 4, readingsSentAgain: 0 });
    await read('rows-2');
    expect(sim.stats()).toMatchObject({ readingsSent: 8, readingsSentAgain: 4 });
  });

  it('lets flapping devices go offline and come back', async () => {
    const fleet: Fleet = { version: 1, dcus: [], direct: [{ devAddr: 'F-X1', wiring: '1P2W', prepaid: false }] };
    start({ fleet, seed: 8, knobs: { ...QUIET, flapping: 1, flapPeriodSec: 0.3 } });
    const down = await head.waitFor((m) => m.topic === 'ami/meter/F-X1/status' && m.payload.online === false);
    const up = await head.waitFor(
      (m) => m.topic === 'ami/meter/F-X1/status' && m.payload.online === true,
      head.heard.indexOf(down) + 1,
    );
    expect(up.payload.time).toEqual(expect.any(String));
  });

  it('logs in again after the broker refused it as unavailable, as a device does', async () => {
    const refusing = await startBroker(0, { unavailableLogins: 1 });
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 1, seed: 10, prefix: 'U' });
    const sim = startSimulator({ url: refusing.url, fleet, seed: 10, knobs: QUIET });
    try {
      await sim.ready;
      expect(refusing.logins).toHaveLength(2);
      expect(sim.stats().connected).toBe(1);
    } finally {
      await sim.stop();
      await refusing.close();
    }
  });

  it('reconnects when the broker goes away and comes back, and answers again', async () => {
    const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 2, seed: 9, prefix: 'R' });
    const sim = start({ fleet, seed: 9, knobs: QUIET });
    await sim.ready;
    const port = broker.port;
    await head.close();
    await broker.close();
    await until(() => sim.stats().connected === 0);
    broker = await startBroker(port);
    head = await connectHeadEnd(broker.url);
    const status = await head.waitFor((m) => m.topic === 'ami/dcu/R-D0001/status' && m.payload.online === true);
    expect(status.payload.time).toEqual(expect.any(String));
    await until(() => sim.stats().connected === 1);
    expect((await head.ask('meter', 'R-M00010002', serial)).code).toBe('00');
    expect(sim.stats().connectionLosses).toBe(1);
  });
});
