import { type Fleet, OBIS, TOKEN_GATEWAY } from '@meterdesk/contracts';
import { DEMO_VENDING_KEY, deriveDecoderKey, issueCreditToken, meterKeyDataOf } from '@meterdesk/contracts/payment/sts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dailyFrozen, intervalProfile, monthlyFrozen, registerAt } from './energy';
import { type Simulator, startSimulator } from './simulator';
import { connectHeadEnd, type HeadEnd, inAMinute, newReqId, startBroker, type TestBroker, until } from './test/broker';

const SEED = 11;
const FAST = { min: 5, median: 10, max: 30 };

const fleet: Fleet = {
  version: 1,
  dcus: [
    {
      dcuNo: 'T-D1',
      credentials: { username: 'dcu:T-D1', password: 'dcu-secret' },
      meters: [
        { devAddr: 'T-M1', wiring: '1P2W', prepaid: false },
        { devAddr: 'T-M2', wiring: '3P4W', prepaid: true },
        { devAddr: 'T-M3', wiring: '1P2W', prepaid: false },
        { devAddr: 'T-M4', wiring: '1P2W', prepaid: false },
      ],
    },
    { dcuNo: 'T-D2', meters: [{ devAddr: 'T-M5', wiring: '1P2W', prepaid: false }] },
  ],
  direct: [
    { devAddr: 'T-X1', wiring: '3P4W', prepaid: false, credentials: { username: 'meter:T-X1', password: 'x1-secret' } },
  ],
};

const item = (obis: string, classId: number, attribute: number, value?: unknown) => ({
  obis,
  classId,
  attribute,
  ...(value === undefined ? {} : { value }),
});
const get = (...items: ReturnType<typeof item>[]) => ({ op: 'get', items });
type ReplyItem = { obis: string; attribute?: number; code: string; value?: unknown };
const itemsOf = (reply: Record<string, unknown>) => reply.items as ReplyItem[];

describe('device fleet on a broker', () => {
  let broker: TestBroker;
  let sim: Simulator;
  let head: HeadEnd;

  beforeAll(async () => {
    broker = await startBroker();
    head = await connectHeadEnd(broker.url);
    sim = startSimulator({
      url: broker.url,
      fleet,
      seed: SEED,
      knobs: { latency: FAST, heartbeatSec: 0.5, powerOutagesPerDay: 0, coverOpensPerDay: 0, rebootSec: 0.5 },
    });
    await sim.ready;
  });
  afterAll(async () => {
    await sim?.stop();
    await head?.close();
    await broker?.close();
  });

  describe('connections', () => {
    it('logs in with the fleet credentials, or anonymously under its own client id', () => {
      expect(broker.logins).toContainEqual({ clientId: 'dcu:T-D1', username: 'dcu:T-D1', password: 'dcu-secret' });
      expect(broker.logins).toContainEqual({ clientId: 'meter:T-X1', username: 'meter:T-X1', password: 'x1-secret' });
      expect(broker.logins).toContainEqual({ clientId: 'dcu-T-D2', username: undefined, password: undefined });
      // One connection per DCU and per direct meter: the meters behind a DCU have none.
      expect(broker.logins.filter((l) => !l.clientId.startsWith('head-end'))).toHaveLength(3);
    });

    it('publishes retained online statuses for DCUs, their meters and direct meters, and heartbeats', async () => {
      for (const topic of ['ami/dcu/T-D1/status', 'ami/meter/T-M3/status', 'ami/meter/T-X1/status']) {
        const status = await head.waitFor((m) => m.topic === topic);
        expect(status.payload.online).toBe(true);
        expect(typeof status.payload.time).toBe('string');
      }
      // A late subscriber still learns who is online: the statuses are retained.
      const late = await connectHeadEnd(broker.url);
      try {
        const retained = await late.waitFor((m) => m.topic === 'ami/meter/T-M5/status');
        expect(retained).toMatchObject({ retain: true, payload: { online: true } });
      } finally {
        await late.close();
      }
      const beat = await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/heartbeat');
      expect(Date.parse(beat.payload.time as string)).not.toBeNaN();
    });

    it('leaves its last will when the connection breaks, and comes back', async () => {
      const before = head.heard.length;
      sim.device('T-D2').dropConnection();
      const will = await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/status', before);
      // The will is the only status without a time: the broker published it, not the DCU.
      expect(will.payload).toEqual({ online: false });
      const back = await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/status', head.heard.indexOf(will) + 1);
      expect(back.payload.online).toBe(true);
      await until(() => sim.device('T-M5').state().reachable);
      expect((await head.ask('meter', 'T-M5', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');
    });
  });

  describe('blackout', () => {
    it("darkens an area: its meters' last gasps leave before their DCU goes, and power-up brings all back", async () => {
      const before = head.heard.length;
      const area = ['T-D1', 'T-M1', 'T-M2', 'T-M3', 'T-M4', 'T-X1'];
      expect(sim.setPower([...area, 'NOT-IN-FLEET'], false)).toEqual({ changed: 6, unknown: 1 });
      const dcuDown = await head.waitFor((m) => m.topic === 'ami/dcu/T-D1/event' && m.payload.code === 80, before);
      const at = head.heard.indexOf(dcuDown);
      for (const meter of ['T-M1', 'T-M2', 'T-M3', 'T-M4']) {
        const gasp = await head.waitFor((m) => m.topic === `ami/meter/${meter}/event` && m.payload.code === 1, before);
        expect(head.heard.indexOf(gasp)).toBeLessThan(at);
        const offline = await head.waitFor((m) => m.topic === `ami/meter/${meter}/status`, before);
        expect(offline.payload.online).toBe(false);
      }
      await head.waitFor((m) => m.topic === 'ami/meter/T-X1/event' && m.payload.code === 1, before);
      await head.waitFor((m) => m.topic === 'ami/meter/T-X1/status' && m.payload.online === false, before);
      expect(sim.device('T-M1').state()).toMatchObject({ powered: false, online: false, reachable: false });
      // Another DCU's meter keeps its supply; a dark meter stays dark whatever else says online.
      expect(sim.device('T-M5').state().reachable).toBe(true);
      sim.device('T-M1').setOnline(true);
      expect(sim.device('T-M1').state().online).toBe(false);
      expect(sim.setPower(area, false).changed).toBe(0);

      const restored = head.heard.length;
      expect(sim.setPower(area, true)).toEqual({ changed: 6, unknown: 0 });
      await head.waitFor((m) => m.topic === 'ami/dcu/T-D1/event' && m.payload.code === 81, restored);
      for (const meter of ['T-M1', 'T-M2', 'T-M3', 'T-M4', 'T-X1']) {
        await head.waitFor((m) => m.topic === `ami/meter/${meter}/event` && m.payload.code === 2, restored);
        await head.waitFor((m) => m.topic === `ami/meter/${meter}/status` && m.payload.online === true, restored);
      }
      await until(() => sim.device('T-M1').state().reachable);
      expect((await head.ask('meter', 'T-M1', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');

      // Restored again (a simulator started while the back-office still records the blackout): nothing
      // changes, but the devices say they have supply, which ends the outage the back-office shows.
      const again = head.heard.length;
      expect(sim.setPower(['T-D1', 'T-M1'], true)).toEqual({ changed: 0, unknown: 0 });
      await head.waitFor((m) => m.topic === 'ami/dcu/T-D1/event' && m.payload.code === 81, again);
      await head.waitFor((m) => m.topic === 'ami/meter/T-M1/event' && m.payload.code === 2, again);
      expect(sim.device('T-M1').state()).toMatchObject({ powered: true, reachable: true });
    });
  });

  describe('get', () => {
    it('reads the clock, serial number, firmware, registers, relays and payment mode', async () => {
      const before = Date.now();
      const reply = await head.ask(
        'meter',
        'T-M2',
        get(
          item(OBIS.clock, 8, 2),
          item(OBIS.serialNumber, 1, 2),
          item(OBIS.firmwareVersion, 1, 2),
          item(OBIS.activeImport, 3, 2),
          item(OBIS.activeImport, 3, 3),
          item('1-0:1.8.3.255', 3, 2),
          item(OBIS.voltageL1, 3, 2),
          item(OBIS.mainRelay, 70, 3),
          item(OBIS.externalRelay, 70, 2),
          item(OBIS.account, 111, 2),
        ),
      );
      const after = Date.now();
      expect(reply.code).toBe('00');
      const [clock, serial, firmware, energy, scalerUnit, rate3, voltage, main, external, account] = itemsOf(reply);
      expect(Math.abs(Date.parse(clock!.value as string) - before)).toBeLessThan(60_000);
      expect(serial).toEqual({ obis: OBIS.serialNumber, attribute: 2, code: '00', value: 'T-M2' });
      expect(firmware!.value).toMatch(/^MT-/);
      expect(energy!.value).toBeGreaterThanOrEqual(registerAt(SEED, 'T-M2', before, '3P4W').activeImport);
      expect(energy!.value).toBeLessThanOrEqual(registerAt(SEED, 'T-M2', after, '3P4W').activeImport);
      expect(scalerUnit!.value).toEqual({ scaler: 0, unit: 30 });
      expect(rate3!.value).toBeLessThan(energy!.value as number);
      expect(voltage!.value).toBeGreaterThan(2000);
      expect(main!.value).toBe(1);
      expect(external!.value).toBe(true);
      // T-M2 is a prepaid consumer's meter.
      expect(account!.value).toBe(2);
    });

    it('answers any past range of the load profile, the same numbers on a later re-read', async () => {
      const range = { from: '2026-01-05T00:00:00.000Z', to: '2026-01-06T00:00:00.000Z' };
      const first = await head.ask('meter', 'T-M1', get(item(OBIS.loadProfile, 7, 2, range)));
      expect(first.code).toBe('00');
      const rows = itemsOf(first)[0]!.value as { ts: string; values: Record<string, number> }[];
      const expected = intervalProfile(SEED, 'T-M1', range.from, range.to);
      expect(rows).toHaveLength(97);
      expect(rows.map((r) => [r.ts, r.values[OBIS.activeImport]])).toEqual(expected.map((r) => [r.ts, r.activeImport]));
      expect(rows[5]!.values[OBIS.activePower]).toBe(expected[5]!.energy * 4);
      const again = await head.ask('meter', 'T-M1', get(item(OBIS.loadProfile, 7, 2, range)));
      expect(itemsOf(again)[0]!.value).toEqual(rows);
    });

    it('answers daily and monthly frozen values equal to the registers at midnight', async () => {
      const daily = await head.ask(
        'meter',
        'T-M1',
        get(item(OBIS.dailyProfile, 7, 2, { from: '2026-02-01T00:00:00Z', to: '2026-02-10T00:00:00Z' })),
      );
      const days = itemsOf(daily)[0]!.value as { ts: string; values: Record<string, number> }[];
      expect(days).toHaveLength(10);
      for (const day of days) {
        expect(day.values[OBIS.activeImport]).toBe(registerAt(SEED, 'T-M1', day.ts).activeImport);
      }
      expect(days[3]!.values['1-0:1.6.0.255']).toBe(dailyFrozen(SEED, 'T-M1', days[3]!.ts, days[3]!.ts)[0]!.maxDemand);
      const monthly = await head.ask(
        'meter',
        'T-M1',
        get(item(OBIS.monthlyBilling, 7, 2, { from: '2025-10-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })),
      );
      const months = itemsOf(monthly)[0]!.value as { ts: string; values: Record<string, number> }[];
      expect(months.map((m) => m.values[OBIS.activeImport])).toEqual(
        monthlyFrozen(SEED, 'T-M1', '2025-10-01T00:00:00Z', '2026-01-01T00:00:00Z').map((m) => m.activeImport),
      );
    });

    it('never answers intervals that have not happened yet', async () => {
      const reply = await head.ask(
        'meter',
        'T-M1',
        get(
          item(OBIS.loadProfile, 7, 2, {
            from: new Date(Date.now() - 3_600_000).toISOString(),
            to: '2999-01-01T00:00:00Z',
          }),
        ),
      );
      const rows = itemsOf(reply)[0]!.value as { ts: string }[];
      expect(rows.length).toBeGreaterThanOrEqual(3);
      expect(rows.length).toBeLessThanOrEqual(4);
      expect(Date.parse(rows.at(-1)!.ts)).toBeLessThanOrEqual(Date.now());
    });

    it('fails a range longer than a read may carry', async () => {
      const reply = await head.ask(
        'meter',
        'T-M1',
        get(item(OBIS.loadProfile, 7, 2, { from: '2025-01-01T00:00:00Z', to: '2025-06-01T00:00:00Z' })),
      );
      expect(reply.code).toBe('02');
    });
  });

  describe('set and action', () => {
    it('sets the clock, payment mode, capture period and objects, and push schedule', async () => {
      const target = '2026-06-01T12:00:00.000Z';
      const reply = await head.ask('meter', 'T-M3', {
        op: 'set',
        items: [
          item(OBIS.clock, 8, 2, target),
          item(OBIS.account, 111, 2, { paymentMode: 2 }),
          item(OBIS.loadProfile, 7, 4, 1800),
          item(OBIS.loadProfile, 7, 3, [OBIS.clock, OBIS.activeImport, OBIS.voltageL1]),
          item(OBIS.pushSetup, 40, 4, ['01:30']),
        ],
      });
      expect(reply.code).toBe('00');
      expect(itemsOf(reply).map((i) => i.code)).toEqual(['00', '00', '00', '00', '00']);
      const state = sim.device('T-M3').state();
      expect(Math.abs(Date.parse(state.clock) - Date.parse(target))).toBeLessThan(60_000);
      expect(state).toMatchObject({ paymentMode: 2, capturePeriodSec: 1800, pushSchedule: ['01:30'] });
      const profile = await head.ask(
        'meter',
        'T-M3',
        get(item(OBIS.loadProfile, 7, 2, { from: '2026-01-05T00:00:00Z', to: '2026-01-05T02:00:00Z' })),
      );
      const rows = itemsOf(profile)[0]!.value as { ts: string; values: Record<string, number> }[];
      expect(rows.map((r) => r.ts.slice(11, 16))).toEqual(['00:00', '00:30', '01:00', '01:30', '02:00']);
      expect(Object.keys(rows[0]!.values).sort()).toEqual([OBIS.activeImport, OBIS.voltageL1].sort());
      const clockEvents = await head.waitFor((m) => m.topic === 'ami/meter/T-M3/event' && m.payload.code === 5);
      expect(clockEvents.payload).toMatchObject({ level: 'regular', time: target });
    });

    it('answers a partial success with each item its code, and a failure when every item fails', async () => {
      const partial = await head.ask('meter', 'T-M3', {
        op: 'set',
        items: [item(OBIS.account, 111, 2, 7), item(OBIS.account, 111, 2, 1)],
      });
      expect(partial.code).toBe('01');
      expect(itemsOf(partial).map((i) => i.code)).toEqual(['02', '00']);
      const oddPeriod = await head.ask('meter', 'T-M3', { op: 'set', items: [item(OBIS.loadProfile, 7, 4, 420)] });
      expect(oddPeriod.code).toBe('02');
      // Five minutes, as the head-end's parameter sync may ask: registers in between stay consistent.
      expect((await head.ask('meter', 'T-M3', { op: 'set', items: [item(OBIS.loadProfile, 7, 4, 300)] })).code).toBe(
        '00',
      );
      const fine = await head.ask(
        'meter',
        'T-M3',
        get(item(OBIS.loadProfile, 7, 2, { from: '2026-01-05T10:00:00Z', to: '2026-01-05T10:30:00Z' })),
      );
      const rows = itemsOf(fine)[0]!.value as { ts: string; values: Record<string, number> }[];
      expect(rows.map((r) => r.ts.slice(14, 16))).toEqual(['00', '05', '10', '15', '20', '25', '30']);
      for (const row of rows) expect(row.values[OBIS.activeImport]).toBe(registerAt(SEED, 'T-M3', row.ts).activeImport);
      const readOnly = await head.ask('meter', 'T-M3', { op: 'set', items: [item(OBIS.serialNumber, 1, 2, 'X')] });
      expect(readOnly.code).toBe('02');
      sim.device('T-M4').setFault({ failObis: [OBIS.clock] });
      const injected = await head.ask('meter', 'T-M4', get(item(OBIS.clock, 8, 2), item(OBIS.serialNumber, 1, 2)));
      expect(injected.code).toBe('01');
      expect(itemsOf(injected).map((i) => i.code)).toEqual(['02', '00']);
      sim.device('T-M4').setFault({ failObis: [], failNext: 1 });
      expect((await head.ask('meter', 'T-M4', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('02');
      expect((await head.ask('meter', 'T-M4', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');
    });

    it('disconnects and reconnects the relays by target state, idempotently, with their events', async () => {
      const disconnect = (obis: string) => ({ op: 'action', items: [item(obis, 70, 1)] });
      const first = await head.ask('meter', 'T-M1', disconnect(OBIS.mainRelay));
      expect(first).toMatchObject({ code: '00', items: [{ obis: OBIS.mainRelay, code: '00', value: 0 }] });
      const event = await head.waitFor((m) => m.topic === 'ami/meter/T-M1/event' && m.payload.code === 62);
      expect(event.payload).toMatchObject({ level: 'medium', data: { relay: 'main', state: 0 } });
      // Asked again, the relay is already open: success, and nothing happens.
      expect((await head.ask('meter', 'T-M1', disconnect(OBIS.mainRelay))).code).toBe('00');
      expect(sim.device('T-M1').state().mainRelay).toBe(0);
      expect((await head.ask('meter', 'T-M1', disconnect(OBIS.externalRelay))).code).toBe('00');
      expect(sim.device('T-M1').state()).toMatchObject({ mainRelay: 0, externalRelay: 0 });
      const reconnect = await head.ask('meter', 'T-M1', { op: 'action', items: [item(OBIS.mainRelay, 70, 2)] });
      expect(reconnect).toMatchObject({ code: '00', items: [{ value: 1 }] });
      await head.waitFor((m) => m.topic === 'ami/meter/T-M1/event' && m.payload.code === 63);
      // The event log read back holds one disconnection of the main relay, not two.
      const log = await head.ask(
        'meter',
        'T-M1',
        get(item(OBIS.eventLog, 7, 2, { from: new Date(Date.now() - 600_000).toISOString(), to: inAMinute() })),
      );
      const events = itemsOf(log)[0]!.value as { code: number; data?: { relay?: string } }[];
      expect(events.filter((e) => e.code === 62 && e.data?.relay === 'main')).toHaveLength(1);
      expect(events.filter((e) => e.code === 63)).toHaveLength(1);
    });

    it("sets a parameter template's objects, failing (02) only the items it lacks or refuses", async () => {
      const reply = await head.ask('meter', 'T-X1', {
        op: 'set',
        items: [
          item(OBIS.demandPeriod, 1, 2, 1800),
          item(OBIS.capturePeriod, 1, 2, 300),
          item(OBIS.voltageSagThreshold, 3, 2, 1980),
          item(OBIS.voltageSwellThreshold, 3, 2, 2600),
          item(OBIS.limiter, 71, 4, 8000),
          item(OBIS.displayList, 7, 3, [OBIS.activeImport, OBIS.voltageL1]),
          item('0-0:96.50.1.255', 1, 2, 5),
          item(OBIS.demandPeriod, 1, 2, 700),
        ],
      });
      expect(reply.code).toBe('01');
      expect(itemsOf(reply).map((i) => i.code)).toEqual(['00', '00', '00', '00', '00', '00', '02', '02']);
      expect(sim.device('T-X1').state()).toMatchObject({
        capturePeriodSec: 300,
        settings: {
          demandPeriodSec: 1800,
          voltageSagDv: 1980,
          voltageSwellDv: 2600,
          demandLimitW: 8000,
          displayList: [OBIS.activeImport, OBIS.voltageL1],
        },
      });
      const read = await head.ask('meter', 'T-X1', get(item(OBIS.voltageSwellThreshold, 3, 3)));
      expect(itemsOf(read)[0]!.value).toEqual({ scaler: -1, unit: 35 });
      // A display list of objects the meter does not hold is refused.
      const unknown = await head.ask('meter', 'T-X1', {
        op: 'set',
        items: [item(OBIS.displayList, 7, 3, ['1-0:99.99.9.255'])],
      });
      expect(unknown.code).toBe('02');
      await head.ask('meter', 'T-X1', { op: 'set', items: [item(OBIS.capturePeriod, 1, 2, 900)] });
    });

    it("writes a TOU calendar to the passive side, which becomes active when the meter's clock reaches its time", async () => {
      const calendar = {
        seasons: [{ start: '01-01', weekId: 1 }],
        weeks: [{ weekId: 1, days: [1, 1, 1, 1, 1, 1, 1] }],
        days: [
          {
            dayId: 1,
            switches: [
              { time: '00:00', rate: 1 },
              { time: '08:00', rate: 2 },
            ],
          },
        ],
      };
      const activation = new Date(Date.now() + 3_600_000).toISOString();
      const written = await head.ask('meter', 'T-M2', {
        op: 'set',
        items: [
          item(OBIS.activityCalendar, 20, 6, 'Day and night'),
          item(OBIS.activityCalendar, 20, 7, calendar.seasons),
          item(OBIS.activityCalendar, 20, 8, calendar.weeks),
          item(OBIS.activityCalendar, 20, 9, calendar.days),
          item(OBIS.specialDays, 11, 2, []),
          item(OBIS.activityCalendar, 20, 10, activation),
        ],
      });
      expect(written.code).toBe('00');
      expect(sim.device('T-M2').state().calendar).toMatchObject({ active: null, passive: 'Day and night' });
      // A DCU has no calendar.
      expect((await head.ask('dcu', 'T-D1', get(item(OBIS.activityCalendar, 20, 2)))).code).toBe('92');

      sim.device('T-M2').setClockOffset(3_660);
      const names = await head.ask(
        'meter',
        'T-M2',
        get(item(OBIS.activityCalendar, 20, 2), item(OBIS.activityCalendar, 20, 9)),
      );
      expect(itemsOf(names).map((i) => i.value)).toEqual(['Day and night', calendar.days]);
      expect(sim.device('T-M2').state().calendar.activationTime).toBeNull();
      sim.device('T-M2').setClockOffset(0);
    });

    it("credits a prepaid meter's token once, however often its command or the token comes", async () => {
      const before = sim.device('T-M2').state().prepayment!;
      const decoderKey = deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf('T-M2'));
      const token = issueCreditToken({ decoderKey, amount: 2_000, issuedAt: Date.now() });
      const enter = { op: 'action', items: [item(OBIS.tokenGateway, TOKEN_GATEWAY.classId, 1, token.digits)] };
      const reqId = newReqId();
      const first = await head.ask('meter', 'T-M2', { ...enter, reqId });
      expect(itemsOf(first)[0]).toMatchObject({
        code: '00',
        value: { result: 'accepted', tid: token.tid, amount: 2_000 },
      });
      const again = await head.ask('meter', 'T-M2', { ...enter, reqId, attempt: 2 });
      expect(again.items).toEqual(first.items);
      expect(sim.executions(reqId)).toBe(1);
      const retyped = await head.ask('meter', 'T-M2', enter);
      expect(itemsOf(retyped)[0]).toMatchObject({ code: '02', value: { result: 'used', tid: token.tid } });
      const after = sim.device('T-M2').state().prepayment!;
      expect(after.tids).toEqual([...before.tids, token.tid]);
      // The meter draws its credit down as it consumes: at most the token's amount more than before.
      expect(after.credit).toBeLessThanOrEqual(before.credit + 2_000);
      expect(after.credit).toBeGreaterThan(before.credit + 1_900);
    });

    it('reads and sets the DCU parameters, task parameters and blacklist', async () => {
      const set = await head.ask('dcu', 'T-D1', {
        op: 'set',
        items: [
          item(OBIS.dcuParameters, 1, 2, { heartbeatSeconds: 120 }),
          item(OBIS.dcuTaskParameters, 1, 2, { collectPeriodMinutes: 30 }),
          item(OBIS.dcuBlacklist, 1, 2, ['T-M4']),
        ],
      });
      expect(set.code).toBe('00');
      const read = await head.ask(
        'dcu',
        'T-D1',
        get(item(OBIS.dcuParameters, 1, 2), item(OBIS.dcuTaskParameters, 1, 2), item(OBIS.dcuBlacklist, 1, 2)),
      );
      const [params, tasks, blacklist] = itemsOf(read);
      expect(params!.value).toMatchObject({ heartbeatSeconds: 120, reportPeriodMinutes: 60 });
      expect(tasks!.value).toMatchObject({ collectPeriodMinutes: 30, enabled: true });
      expect(blacklist!.value).toEqual(['T-M4']);
      const bad = await head.ask('dcu', 'T-D1', { op: 'set', items: [item(OBIS.dcuBlacklist, 1, 2, 'T-M4')] });
      expect(bad.code).toBe('02');
    });

    it('answers a hexadecimal frame through a DCU', async () => {
      const reply = await head.ask('dcu', 'T-D1', { op: 'frame', frame: 'c0 01 c1 00 08' });
      expect(reply).toMatchObject({ code: '00', frame: 'E6E700C001C10008' });
    });

    it("pushes the values frozen at midnight on its DCU's data topic", async () => {
      sim.device('T-M3').pushNow();
      const data = await head.waitFor((m) => m.topic === 'ami/dcu/T-D1/data');
      const readings = data.payload as unknown as { meter: string; obis: string; ts: string; value: number }[];
      const midnight = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000).toISOString();
      const energy = readings.find((r) => r.obis === OBIS.activeImport)!;
      expect(energy).toEqual({
        meter: 'T-M3',
        obis: OBIS.activeImport,
        ts: midnight,
        value: registerAt(SEED, 'T-M3', midnight).activeImport,
      });
      expect(readings.map((r) => r.obis)).toContain('1-0:1.6.0.255');
      expect(sim.stats().pushedReadings).toBe(readings.length);
    });

    it('reboots a DCU: it answers, goes offline, and comes back', async () => {
      const from = head.heard.length;
      expect((await head.ask('dcu', 'T-D2', { op: 'reboot' })).code).toBe('00');
      const down = await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/status' && m.payload.online === false, from);
      await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/event' && m.payload.code === 80, from);
      const up = await head.waitFor(
        (m) => m.topic === 'ami/dcu/T-D2/status' && m.payload.online === true,
        head.heard.indexOf(down) + 1,
      );
      expect(typeof up.payload.time).toBe('string');
      await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/event' && m.payload.code === 81, from);
    });
  });

  describe('result codes', () => {
    it.each([
      ['a body that is not a command', { op: 'explode', items: [] }],
      ['no items to get', { op: 'get', items: [] }],
      ['an unknown OBIS code', get(item('1-0:99.99.9.255', 3, 2))],
      ['the wrong class', get(item(OBIS.activeImport, 4, 2))],
      ['an unknown attribute', get(item(OBIS.activeImport, 3, 9))],
      ['an unknown method', { op: 'action', items: [item(OBIS.mainRelay, 70, 3)] }],
      ['a range that is not times', get(item(OBIS.loadProfile, 7, 2, { from: 'yesterday', to: 'now' }))],
      ['a DCU operation on a meter', { op: 'reboot' }],
      ['a DCU object on a meter', get(item(OBIS.dcuBlacklist, 1, 2))],
    ])('answers 92 to %s', async (_why, body) => {
      expect((await head.ask('meter', 'T-M4', body)).code).toBe('92');
    });

    it('answers 92 to a frame that is not hexadecimal', async () => {
      expect((await head.ask('dcu', 'T-D1', { op: 'frame', frame: 'hello' })).code).toBe('92');
    });

    it('answers busy (91) once when told to, then executes the retry', async () => {
      sim.device('T-M4').setFault({ busyNext: 1 });
      const reqId = newReqId();
      const busy = await head.ask('meter', 'T-M4', { ...get(item(OBIS.serialNumber, 1, 2)), reqId });
      expect(busy.code).toBe('91');
      expect(sim.executions(reqId)).toBe(0);
      const retry = await head.ask('meter', 'T-M4', { ...get(item(OBIS.serialNumber, 1, 2)), reqId, attempt: 2 });
      expect(retry.code).toBe('00');
      expect(sim.executions(reqId)).toBe(1);
    });

    it('answers busy while the device is executing another command', async () => {
      sim.device('T-M4').setFault({ latencyMs: 500 });
      try {
        const slow = head.ask('meter', 'T-M4', get(item(OBIS.serialNumber, 1, 2)));
        await until(() => sim.stats().inFlight > 0);
        expect((await head.ask('meter', 'T-M4', get(item(OBIS.clock, 8, 2)))).code).toBe('91');
        expect((await slow).code).toBe('00');
      } finally {
        sim.device('T-M4').setFault({ latencyMs: null });
      }
    });

    it('stays silent while offline, says so on its status, and answers again once back', async () => {
      const meter = sim.device('T-M4');
      meter.setOnline(false);
      const offline = await head.waitFor((m) => m.topic === 'ami/meter/T-M4/status' && m.payload.online === false);
      expect(offline.retain).toBe(false);
      const silentBefore = sim.stats().silent;
      const reqId = newReqId();
      head.send('meter', 'T-M4', { reqId, deadline: inAMinute(), ...get(item(OBIS.serialNumber, 1, 2)) });
      await until(() => sim.stats().silent === silentBefore + 1);
      const since = head.heard.length;
      meter.setOnline(true);
      await head.waitFor((m) => m.topic === 'ami/meter/T-M4/status' && m.payload.online === true, since);
      expect((await head.ask('meter', 'T-M4', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');
      expect(head.heard.some((m) => m.topic === 'ami/meter/T-M4/reply' && m.payload.reqId === reqId)).toBe(false);
      expect(sim.executions(reqId)).toBe(0);
    });

    it('takes the meters behind a DCU with it when the DCU goes offline', async () => {
      const dcu = sim.device('T-D2');
      const since = head.heard.length;
      dcu.setOnline(false);
      const down = await head.waitFor((m) => m.topic === 'ami/dcu/T-D2/status', since);
      expect(down.payload).toEqual({ online: false, time: expect.any(String) });
      await until(() => sim.stats().connected === 2);
      expect(sim.device('T-M5').state()).toMatchObject({ online: true, reachable: false });
      const receivedBefore = sim.stats().received;
      await head.send('meter', 'T-M5', {
        reqId: newReqId(),
        deadline: inAMinute(),
        ...get(item(OBIS.serialNumber, 1, 2)),
      });
      dcu.setOnline(true);
      await until(() => sim.device('T-M5').state().reachable);
      // Nobody was subscribed to the meter's commands while its DCU was away.
      expect(sim.stats().received).toBe(receivedBefore);
      expect((await head.ask('meter', 'T-M5', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');
    });

    it('stays silent while online when told to', async () => {
      const meter = sim.device('T-M3');
      meter.setFault({ silent: true });
      const silentBefore = sim.stats().silent;
      const reqId = newReqId();
      head.send('meter', 'T-M3', { reqId, deadline: inAMinute(), ...get(item(OBIS.serialNumber, 1, 2)) });
      await until(() => sim.stats().silent === silentBefore + 1);
      expect(meter.state().online).toBe(true);
      meter.setFault({ silent: false });
      expect((await head.ask('meter', 'T-M3', get(item(OBIS.serialNumber, 1, 2)))).code).toBe('00');
      expect(sim.executions(reqId)).toBe(0);
    });

    it('executes a reqId once: the same command sent again is answered from the stored reply', async () => {
      const before = sim.stats();
      const reqId = newReqId();
      const body = { reqId, op: 'action', items: [item(OBIS.externalRelay, 70, 2)] };
      const first = await head.ask('meter', 'T-M1', body);
      const replies = () => head.heard.filter((m) => m.topic === 'ami/meter/T-M1/reply' && m.payload.reqId === reqId);
      head.send('meter', 'T-M1', { ...body, deadline: inAMinute() });
      await until(() => replies().length === 2);
      const { time: _t1, ...firstBody } = first;
      const { time: _t2, ...secondBody } = replies()[1]!.payload;
      expect(secondBody).toEqual(firstBody);
      // A retry under the next attempt number while the first still runs joins it.
      sim.device('T-M1').setFault({ latencyMs: 300 });
      const slowId = newReqId();
      head.send('meter', 'T-M1', { reqId: slowId, deadline: inAMinute(), ...get(item(OBIS.clock, 8, 2)) });
      head.send('meter', 'T-M1', { reqId: slowId, attempt: 2, deadline: inAMinute(), ...get(item(OBIS.clock, 8, 2)) });
      await until(
        () => head.heard.filter((m) => m.topic === 'ami/meter/T-M1/reply' && m.payload.reqId === slowId).length === 2,
      );
      sim.device('T-M1').setFault({ latencyMs: null });
      const after = sim.stats();
      expect(sim.executions(reqId)).toBe(1);
      expect(sim.executions(slowId)).toBe(1);
      expect(after.duplicateSends - before.duplicateSends).toBe(1);
      expect(after.replayed - before.replayed).toBe(2);
      expect(after.executedTwice).toBe(0);
      expect(head.heard.filter((m) => m.topic === 'ami/meter/T-M1/event' && m.payload.code === 63)).toHaveLength(2);
    });

    it('answers a long read asked again under the same reqId with the same rows, without executing it again', async () => {
      const reqId = newReqId();
      const body = {
        reqId,
        ...get(item(OBIS.dailyProfile, 7, 2, { from: '2025-01-01T00:00:00Z', to: '2025-03-01T00:00:00Z' })),
      };
      const first = await head.ask('meter', 'T-M2', body);
      const again = await head.ask('meter', 'T-M2', { ...body, attempt: 2 });
      expect((itemsOf(first)[0]!.value as unknown[]).length).toBe(60);
      expect(again.items).toEqual(first.items);
      expect(sim.executions(reqId)).toBe(1);
    });

    it('raises the clock-invalid event when a clock drifts past its limit', async () => {
      sim.device('T-M5').setClockOffset(3600);
      const event = await head.waitFor((m) => m.topic === 'ami/meter/T-M5/event' && m.payload.code === 6);
      expect(event.payload).toMatchObject({ level: 'medium', data: { deviationSec: 3600 } });
    });
  });
});
