import {
  ACCOUNT_PAYMENT_MODES,
  ACTIVITY_CALENDAR,
  CHARGE,
  CREDIT,
  type DeviceEvent,
  type DeviceReply,
  FRIENDLY_TIME_ATTRIBUTE,
  OBIS,
  RELAY_STATES,
  SPECIAL_DAYS_TABLE,
  TOKEN_GATEWAY,
  TOKEN_TID_MEMORY,
  type TokenStatus,
  type TouCalendar,
} from '@meterdesk/contracts';
import { DEMO_VENDING_KEY, deriveDecoderKey, issueCreditToken, meterKeyDataOf } from '@meterdesk/contracts/payment/sts';
import { describe, expect, it } from 'vitest';
import { Device, type ExecutionContext, executeCommand } from './device';
import { meterModel } from './energy';
import { EVENT } from './events';
import { UNITS_PER_CENT } from './prepayment';
import { hashString } from './random';

const SEED = 11;
const H = 3_600_000;
/** A Monday. */
const MONDAY = Date.parse('2026-03-02T00:00:00Z');
const A = ACTIVITY_CALENDAR.attributes;

function prepaidMeter(key: string, openingCents: number, tids: number[] = []): Device {
  const d = new Device('meter', key, hashString(key), meterModel(SEED, key));
  d.driftPerMs = 0;
  d.clockOffsetMs = 0;
  d.paymentMode = ACCOUNT_PAYMENT_MODES.prepayment;
  d.prepaymentOf(MONDAY, openingCents, tids);
  return d;
}

/** A meter in credit mode, switched to prepayment (with no credit) once its friendly time is written. */
function switchedToPrepayment(key: string, now: number, friendly: unknown, events: DeviceEvent[]): Device {
  const d = new Device('meter', key, hashString(key), meterModel(SEED, key));
  d.driftPerMs = 0;
  d.clockOffsetMs = 0;
  const reply = run(
    d,
    now,
    'set',
    [
      [OBIS.friendlyTime, 1, FRIENDLY_TIME_ATTRIBUTE, friendly],
      [OBIS.account, 111, 2, ACCOUNT_PAYMENT_MODES.prepayment],
    ],
    events,
  );
  expect(reply.code).toBe('00');
  return d;
}

let reqs = 0;
function run(d: Device, now: number, op: 'get' | 'set' | 'action', items: unknown[][], events: DeviceEvent[] = []) {
  const ctx: ExecutionContext = {
    now,
    emit: (_d, event) => events.push(event),
    clockLimitMs: H,
    eventLog: () => [],
    metersBehind: () => [],
    broadcastLost: () => false,
  };
  const reply: DeviceReply = executeCommand(
    d,
    {
      reqId: `pp-${++reqs}`,
      attempt: 1,
      op,
      deadline: new Date(now + 60_000).toISOString(),
      items: items.map(([obis, classId, attribute, value]) => ({
        obis: obis as string,
        classId: classId as number,
        attribute: attribute as number,
        ...(value === undefined ? {} : { value }),
      })),
    },
    ctx,
  );
  return reply;
}

const keyOf = (serial: string) => deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf(serial));
const enter = (d: Device, now: number, digits: string, events?: DeviceEvent[]) => {
  const item = run(
    d,
    now,
    'action',
    [[OBIS.tokenGateway, TOKEN_GATEWAY.classId, TOKEN_GATEWAY.methods.enter, digits]],
    events,
  ).items![0]!;
  return { code: item.code, status: item.value as TokenStatus };
};
const credit = (d: Device, now: number, events?: DeviceEvent[]) =>
  run(d, now, 'get', [[OBIS.credit, CREDIT.classId, CREDIT.attributes.currentCreditAmount]], events).items![0]!
    .value as number;

describe('the prepaid meter', () => {
  it('takes a token for it once, with its amount and TID, and refuses a corrupt digit and another meter’s token', () => {
    const d = prepaidMeter('PP-M1', 5_000);
    const now = MONDAY + 10 * H;
    // Consumption stands still while the relay is open: only the tokens move the credit here.
    d.mainRelay = RELAY_STATES.disconnected;
    const token = issueCreditToken({ decoderKey: keyOf('PP-M1'), amount: 12_345, issuedAt: now });
    const before = credit(d, now);

    const corrupt = token.digits.slice(0, 19) + ((Number(token.digits[19]) + 5) % 10);
    expect(enter(d, now, corrupt)).toEqual({ code: '02', status: { result: 'corrupt' } });
    const foreign = issueCreditToken({ decoderKey: keyOf('PP-M2'), amount: 12_345, issuedAt: now });
    expect(enter(d, now, foreign.digits)).toEqual({ code: '02', status: { result: 'corrupt' } });
    expect(credit(d, now)).toBe(before);

    const accepted = enter(d, now, token.digits);
    expect(accepted).toEqual({
      code: '00',
      status: { result: 'accepted', tid: token.tid, amount: 12_345, credit: before + 12_345 },
    });
    expect(enter(d, now, token.digits)).toEqual({
      code: '02',
      status: { result: 'used', tid: token.tid, amount: 12_345 },
    });
    expect(credit(d, now)).toBe(before + 12_345);
    const status = run(d, now, 'get', [[OBIS.tokenGateway, TOKEN_GATEWAY.classId, TOKEN_GATEWAY.attributes.status]]);
    expect(status.items![0]!.value).toMatchObject({ result: 'used' });
  });

  it('refuses a TID older than every one it remembers once its memory is full, the TIDs of its fleet entry included', () => {
    const d = prepaidMeter(
      'PP-M7',
      1_000,
      Array.from({ length: TOKEN_TID_MEMORY }, (_, i) => 1000 + i),
    );
    const now = MONDAY + 10 * H;
    const token = (tid: number) =>
      enter(d, now, issueCreditToken({ decoderKey: keyOf('PP-M7'), amount: 100, issuedAt: now, tid }).digits).status;
    expect(token(1025).result).toBe('used');
    expect(token(999).result).toBe('old');
    expect(token(5000).result).toBe('accepted');
    // The oldest TID left the memory for the newest: now it is too old to tell.
    expect(token(1000).result).toBe('old');
    expect(token(1001).result).toBe('used');
  });

  it('draws the credit down by each rate’s energy at its unit charge, across a TOU switch', () => {
    const d = prepaidMeter('PP-M3', 100_000);
    const prices = [12_000, 8_000, 5_000, 2_500];
    // Rate 1 until 08:00, rate 2 after, every day, from 06:00 on.
    const calendar: TouCalendar = {
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
      specialDays: [],
    };
    const written = run(d, MONDAY + 6 * H, 'set', [
      [OBIS.activityCalendar, 20, A.seasonsPassive, calendar.seasons],
      [OBIS.activityCalendar, 20, A.weeksPassive, calendar.weeks],
      [OBIS.activityCalendar, 20, A.daysPassive, calendar.days],
      [OBIS.specialDays, 11, SPECIAL_DAYS_TABLE.attributes.entries, calendar.specialDays],
      [OBIS.activityCalendar, 20, A.activatePassiveTime, new Date(MONDAY + 6 * H).toISOString()],
      [OBIS.charge, CHARGE.classId, CHARGE.attributes.unitChargeActive, prices],
    ]);
    expect(written.code).toBe('00');
    const [from, to] = [MONDAY + 7 * H, MONDAY + 9 * H];
    const startCredit = d.prepayment!.creditUnits;
    run(d, from, 'get', [[OBIS.credit, CREDIT.classId, 2]]);
    const atFrom = d.prepayment!.creditUnits;
    const ratesFrom = d.registersAt(from).rates;
    const ratesTo = d.registersAt(to).rates;
    // Both sides of the 08:00 switch used energy.
    expect(ratesTo[0] - ratesFrom[0]).toBeGreaterThan(0);
    expect(ratesTo[1] - ratesFrom[1]).toBeGreaterThan(0);
    const drawn = ratesTo.reduce((sum, r, i) => sum + (r - ratesFrom[i]!) * prices[i]!, 0);
    expect(credit(d, to)).toBe(Math.floor((atFrom - drawn) / UNITS_PER_CENT));
    expect(atFrom).toBeLessThan(startCredit);
  });

  it('opens the relay at zero credit outside the friendly time, not inside, not with overdraft; a recharge closes it', () => {
    const events: DeviceEvent[] = [];
    // Friendly from 18:00 to 08:00 and on Sundays.
    const friendly = { hours: [{ from: '18:00', to: '08:00' }], weekdays: ['sunday'], holidays: [] };
    const d = switchedToPrepayment('PP-M4', MONDAY + 3 * H, friendly, events);
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    credit(d, MONDAY + 7 * H, events);
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    expect(events).toEqual([]);

    // Overdraft allowed, limited to 0.20 more than the night used: past 08:00 the relay stays closed
    // until the credit reaches minus the limit.
    const limit = 20 - credit(d, MONDAY + 7.5 * H);
    run(
      d,
      MONDAY + 7.5 * H,
      'set',
      [
        [OBIS.credit, CREDIT.classId, CREDIT.attributes.overdraftAllowed, true],
        [OBIS.credit, CREDIT.classId, CREDIT.attributes.overdraftLimit, limit],
      ],
      events,
    );
    expect(credit(d, MONDAY + 8 * H + 60_000, events)).toBeLessThan(0);
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    let t = MONDAY + 8 * H;
    let before = 0;
    while (d.mainRelay === RELAY_STATES.connected && t < MONDAY + 18 * H) {
      before = credit(d, t, events);
      t += 5 * 60_000;
      credit(d, t, events);
    }
    expect(d.mainRelay).toBe(RELAY_STATES.disconnected);
    expect(credit(d, t)).toBeLessThanOrEqual(-limit);
    expect(before).toBeGreaterThan(-limit);
    expect(events.map((e) => e.code)).toEqual([EVENT.creditExhausted, EVENT.manualDisconnection]);

    // A recharge that brings the credit above zero closes it again.
    const token = issueCreditToken({ decoderKey: keyOf('PP-M4'), amount: 5_000, issuedAt: t });
    expect(enter(d, t + 60_000, token.digits, events).code).toBe('00');
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    expect(events.at(-1)).toMatchObject({ code: EVENT.manualConnection, data: { state: RELAY_STATES.connected } });
  });

  it('opens the relay at zero credit without overdraft once the friendly hours end', () => {
    const events: DeviceEvent[] = [];
    const friendly = { hours: [{ from: '00:00', to: '08:00' }], weekdays: [], holidays: ['2026-03-03'] };
    const d = switchedToPrepayment('PP-M5', MONDAY + 3 * H, friendly, events);
    credit(d, MONDAY + 7 * H, events);
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    credit(d, MONDAY + 8 * H, events);
    expect(d.mainRelay).toBe(RELAY_STATES.disconnected);
    expect(events.map((e) => e.code)).toEqual([EVENT.creditExhausted, EVENT.manualDisconnection]);
  });

  it('keeps the relay closed on a friendly holiday', () => {
    const friendly = { hours: [], weekdays: [], holidays: ['2026-03-03'] };
    const d = switchedToPrepayment('PP-M6', MONDAY + 24 * H + 10 * H, friendly, []);
    expect(d.mainRelay).toBe(RELAY_STATES.connected);
    credit(d, MONDAY + 48 * H + 60_000);
    expect(d.mainRelay).toBe(RELAY_STATES.disconnected);
  });
});
