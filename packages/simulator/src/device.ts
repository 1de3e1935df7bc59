import {
  ACCOUNT_PAYMENT_MODES,
  ACTIVE_IMPORT_RATES,
  ACTIVITY_CALENDAR,
  CHARGE,
  COMMON_OBIS,
  CREDIT,
  CREDIT_MAX,
  type DeviceCommand,
  type DeviceEvent,
  type DeviceKind,
  type DeviceProfileRow,
  type DeviceReading,
  type DeviceReply,
  type DeviceReplyItem,
  DLMS_UNITS,
  FRIENDLY_TIME_ATTRIBUTE,
  FriendlyTimeSchema,
  HEX_FRAME,
  IMAGE_TRANSFER,
  inFriendlyTime,
  isObisCode,
  OBIS,
  ProfileRangeSchema,
  RELAY_STATES,
  RESULT_CODES,
  type RelayState,
  type ResultCode,
  SPECIAL_DAYS_TABLE,
  TOKEN_GATEWAY,
  UnitChargesSchema,
  utcWallClock,
} from '@meterdesk/contracts';
import { DEMO_VENDING_KEY, deriveDecoderKey, meterKeyDataOf } from '@meterdesk/contracts/payment/sts';
import {
  activeImportAt,
  DAY_MS,
  dailyRows,
  type FrozenRow,
  instantaneous,
  intervalRows,
  type MeterModel,
  monthlyRows,
  type Registers,
  registersOf,
} from './energy';
import { EVENT, makeEvent } from './events';
import { ImageTransfer } from './image-transfer';
import { Prepayment } from './prepayment';
import { isCalendarWrite, MeterCalendar } from './tou';

export interface Faults {
  /** Answer the next n commands busy (91). */
  busyNext: number;
  /** Online, but answers nothing. */
  silent: boolean;
  /** Fail every item of the next n commands executed (02). */
  failNext: number;
  /** Items on these OBIS codes fail (02); the others succeed, so the reply is a partial success (01). */
  failObis: string[];
  /** Lose the next n commands on the way in. */
  dropNext: number;
  /** Execution time, ms, instead of the fleet's latency distribution. */
  latencyMs: number | null;
  /** Image verification (class 18 method 3) fails whatever was received: status 4, item 02. */
  failImageVerify: boolean;
  /** Fail the calendar writes (class 20 and 11) of the next n commands that carry some (02). */
  failCalendarWrites: number;
}

export const NO_FAULTS: Faults = {
  busyNext: 0,
  silent: false,
  failNext: 0,
  failObis: [],
  dropNext: 0,
  latencyMs: null,
  failImageVerify: false,
  failCalendarWrites: 0,
};

export interface Settings {
  demandPeriodSec: number;
  /** Decivolts (scaler −1). */
  voltageSagDv: number;
  voltageSwellDv: number;
  demandLimitW: number;
  displayList: string[];
}

const DEFAULT_SETTINGS: Settings = {
  demandPeriodSec: 900,
  voltageSagDv: 2070,
  voltageSwellDv: 2530,
  demandLimitW: 12_000,
  displayList: [OBIS.clock, OBIS.activeImport, OBIS.activePower],
};

const FIRMWARE = ['MT-2.1.4', 'MT-2.2.0', 'MT-2.3.1'];
const DCU_FIRMWARE = ['DC-5.0.2', 'DC-5.1.0'];
export const firmwareFor = (kind: DeviceKind, u: number) => {
  const list = kind === 'dcu' ? DCU_FIRMWARE : FIRMWARE;
  return list[Math.floor(u * list.length)]!;
};

/** Log entries a device keeps of what happened to it (relay, clock); the spontaneous ones are recomputed. */
const LOG_LIMIT = 500;

export class Device {
  online = true;
  /** setOnline() from a test or an operator: overrides the knobs. */
  forcedOnline: boolean | null = null;
  /** Off during a blackout (`setPower`): no supply, no link, whatever else says online. */
  powered = true;
  baseOffline = false;
  flapping = false;
  rebooting = false;
  mainRelay: RelayState = RELAY_STATES.connected;
  externalRelay: RelayState = RELAY_STATES.connected;
  paymentMode: number = ACCOUNT_PAYMENT_MODES.credit;
  /** Clock offset from true time at `clockSince`, and its drift, ms per ms. */
  clockOffsetMs = 0;
  clockSince = Date.now();
  driftPerMs = 0;
  clockInvalid = false;
  capturePeriodSec = 900;
  captureObjects: string[] = DEFAULT_CAPTURE_OBJECTS;
  pushSchedule: unknown = ['00:15'];
  firmware = '';
  dcuParameters: Record<string, unknown> = {};
  taskParameters: Record<string, unknown> = {};
  blacklist: string[] = [];
  /** Meters: the activity calendar and special days, from the first time they are read or written. */
  calendar: MeterCalendar | null = null;
  executing = 0;
  /** Class 18: the firmware image being received, verified and activated. */
  readonly image = new ImageTransfer();
  /** Set by an activation: once its reply is out the device restarts into the new firmware. */
  restartAfterReply = false;
  faults: Faults = NO_FAULTS;
  log: DeviceEvent[] = [];
  /** Meters: what a parameter template sets beyond the load profile's period. */
  settings: Settings = DEFAULT_SETTINGS;
  /** Meters: the STS decoder key the fleet gave (else the demonstration key's, `prepaymentOf`). */
  decoderKey: string | null = null;
  /** Meters: credit, charges and tokens, from the start for a prepaid meter, else from the first touch. */
  prepayment: Prepayment | null = null;

  constructor(
    readonly kind: DeviceKind,
    readonly id: string,
    readonly hash: number,
    /** Meters only: their energy. */
    readonly model: MeterModel | null,
  ) {}

  clockOffsetAt(now: number): number {
    return this.clockOffsetMs + (now - this.clockSince) * this.driftPerMs;
  }

  deviceTime(now: number): number {
    return now + this.clockOffsetAt(now);
  }

  setClock(now: number, deviceTimeMs: number): void {
    // An activation the old clock reached happened; one it had not waits for the new clock.
    this.settleCalendar(now);
    this.calendar?.clockSet(now);
    this.clockOffsetMs = deviceTimeMs - now;
    this.clockSince = now;
  }

  /** The true time at which the clock, as it runs now, reads `deviceTimeMs`. */
  trueTimeOf(deviceTimeMs: number): number {
    return (deviceTimeMs - this.clockOffsetMs + this.clockSince * this.driftPerMs) / (1 + this.driftPerMs);
  }

  /** Activates the passive calendar if the clock has reached its activation time: before anything reads or changes. */
  settleCalendar(now: number): void {
    if (this.model && this.calendar) {
      this.calendar.settle(this.model, now, this.deviceTime(now), (t) => this.trueTimeOf(t));
    }
  }

  /** Meters: the registers at a true instant (`total` the active import then, when the caller has it). */
  registersAt(ms: number, total = activeImportAt(this.model!, ms)): Registers {
    const registers = registersOf(this.model!, total);
    const rates = this.calendar?.ratesAt(this.model!, ms);
    return rates ? { ...registers, rates } : registers;
  }

  /** The meter's prepayment, made at `now` with no credit if it has none yet. */
  prepaymentOf(now: number, openingCents = 0, tids: readonly number[] = []): Prepayment {
    this.prepayment ??= new Prepayment(
      () => this.decoderKey ?? deriveDecoderKey(DEMO_VENDING_KEY, meterKeyDataOf(this.id)),
      openingCents,
      now,
      tids,
    );
    return this.prepayment;
  }

  /**
   * Draws the credit down to `now` (in prepayment mode, with the relay closed), then lets the credit
   * drive the relay: open once exhausted outside the friendly time, closed again once a token brought
   * the credit back. Before anything reads or changes the credit, the charges or the relay.
   */
  settlePrepayment(now: number, emit: (d: Device, event: DeviceEvent) => void): void {
    const p = this.prepayment;
    if (!p || !this.model) return;
    this.settleCalendar(now);
    const prepaid = this.paymentMode === ACCOUNT_PAYMENT_MODES.prepayment;
    p.advance(now, this.registersAt(now).rates, prepaid && this.mainRelay === RELAY_STATES.connected);
    if (this.mainRelay === RELAY_STATES.connected) p.relayOpened = false;
    const deviceNow = this.deviceTime(now);
    if (!prepaid) {
      // Back in credit mode, no credit keeps the relay open.
      if (p.relayOpened) this.reconnectAfterCredit(p, deviceNow, emit);
      return;
    }
    const exhausted = p.exhausted();
    if (
      exhausted &&
      this.mainRelay === RELAY_STATES.connected &&
      !inFriendlyTime(p.friendly, utcWallClock(new Date(deviceNow)))
    ) {
      this.mainRelay = RELAY_STATES.disconnected;
      p.relayOpened = true;
      emit(this, makeEvent(EVENT.creditExhausted, deviceNow, { credit: p.creditCents }));
      emit(this, makeEvent(EVENT.manualDisconnection, deviceNow, { relay: 'main', state: RELAY_STATES.disconnected }));
    } else if (!exhausted && p.relayOpened) {
      this.reconnectAfterCredit(p, deviceNow, emit);
    }
  }

  private reconnectAfterCredit(p: Prepayment, deviceNow: number, emit: (d: Device, event: DeviceEvent) => void) {
    this.mainRelay = RELAY_STATES.connected;
    p.relayOpened = false;
    emit(this, makeEvent(EVENT.manualConnection, deviceNow, { relay: 'main', state: RELAY_STATES.connected }));
  }

  record(event: DeviceEvent): void {
    this.log.push(event);
    if (this.log.length > LOG_LIMIT) this.log.splice(0, this.log.length - LOG_LIMIT);
  }
}

/** What executing an item may do besides answering: raise events, reboot. */
export interface ExecutionContext {
  now: number;
  emit(device: Device, event: DeviceEvent): void;
  clockLimitMs: number;
  eventLog(device: Device, fromMs: number, toMs: number): DeviceEvent[];
  /** A DCU's meters that hear it now (a broadcast reaches them); none for a meter. */
  metersBehind(device: Device): readonly Device[];
  /** Whether a meter misses this block of a broadcast (the fleet's broadcast loss). */
  broadcastLost(meter: Device, block: number): boolean;
}

export interface ItemOutcome {
  code: ResultCode;
  value?: unknown;
}

type Handler = (device: Device, value: unknown, ctx: ExecutionContext) => ItemOutcome;

interface ObjectDef {
  classId: number;
  kinds: readonly DeviceKind[];
  get: Record<number, Handler>;
  set?: Record<number, Handler>;
  methods?: Record<number, Handler>;
  /** A get whose value (selective access) is malformed is a wrong command format, not a failure. */
  getValueOk?: (attribute: number, value: unknown) => boolean;
}

const ok = (value?: unknown): ItemOutcome => (value === undefined ? { code: '00' } : { code: '00', value });
const failed: ItemOutcome = { code: RESULT_CODES.failure };
const METERS = ['meter'] as const;
const BOTH = ['dcu', 'meter'] as const;
const DCUS = ['dcu'] as const;

export const DEFAULT_CAPTURE_OBJECTS = [OBIS.clock, OBIS.activeImport, OBIS.reactiveImport, OBIS.activePower];

const registerValues = (r: Registers): Record<string, number> => ({
  [OBIS.activeImport]: r.activeImport,
  [ACTIVE_IMPORT_RATES[0]]: r.rates[0],
  [ACTIVE_IMPORT_RATES[1]]: r.rates[1],
  [ACTIVE_IMPORT_RATES[2]]: r.rates[2],
  [ACTIVE_IMPORT_RATES[3]]: r.rates[3],
  [OBIS.activeExport]: r.activeExport,
  [OBIS.reactiveImport]: r.reactiveImport,
  [OBIS.reactiveExport]: r.reactiveExport,
});

/** Channels a load profile may capture: the registers and the instantaneous values. */
const CAPTURABLE = new Set<string>([
  OBIS.clock,
  ...Object.keys(registerValues(registersOf({ split: [0, 0, 0], reactiveRatio: 0 }, 0))),
  OBIS.activePower,
  OBIS.voltageL1,
  OBIS.currentL1,
]);

const frozenValues = (d: Device, row: FrozenRow): DeviceProfileRow => ({
  ts: row.ts,
  values: { ...registerValues(d.registersAt(Date.parse(row.ts), row.activeImport)), [OBIS.maxDemand]: row.maxDemand },
});

/** Rows a single read may ask for; a longer range fails (02) rather than flooding the broker. */
const PROFILE_LIMITS = {
  [OBIS.loadProfile]: { defaultMs: DAY_MS, maxRows: 31 * 96 },
  [OBIS.dailyProfile]: { defaultMs: 31 * DAY_MS, maxRows: 400 },
  [OBIS.monthlyBilling]: { defaultMs: 366 * DAY_MS, maxRows: 120 },
  [OBIS.eventLog]: { defaultMs: 7 * DAY_MS, maxRows: 1000 },
} as const;

const rangeOk = (attribute: number, value: unknown) => {
  if (attribute !== 2 || value === undefined) return true;
  const range = ProfileRangeSchema.safeParse(value);
  return range.success && Number.isFinite(Date.parse(range.data.from)) && Number.isFinite(Date.parse(range.data.to));
};

/** The range asked, never past the present: a meter cannot answer intervals that have not happened. */
function rangeOf(obis: keyof typeof PROFILE_LIMITS, value: unknown, now: number) {
  const range = value === undefined ? undefined : ProfileRangeSchema.parse(value);
  const to = Math.min(range ? Date.parse(range.to) : now, now);
  const from = range ? Date.parse(range.from) : to - PROFILE_LIMITS[obis].defaultMs;
  return { from, to };
}

function profileRead(
  obis: keyof typeof PROFILE_LIMITS,
  rows: (device: Device, from: number, to: number, ctx: ExecutionContext) => unknown[] | null,
): Handler {
  return (device, value, ctx) => {
    const { from, to } = rangeOf(obis, value, ctx.now);
    if (to < from) return ok([]);
    const answer = rows(device, from, to, ctx);
    return answer ? ok(answer) : failed;
  };
}

function loadProfileRows(device: Device, from: number, to: number): DeviceProfileRow[] | null {
  const periodMs = device.capturePeriodSec * 1000;
  if ((to - from) / periodMs > PROFILE_LIMITS[OBIS.loadProfile].maxRows) return null;
  const m = device.model!;
  return intervalRows(m, from, to, periodMs).map((row) => {
    const registers = registerValues(device.registersAt(Date.parse(row.ts), row.activeImport));
    const values: Record<string, number> = {};
    for (const obis of device.captureObjects) {
      if (obis === OBIS.clock) continue;
      if (obis === OBIS.activePower) values[obis] = Math.round((row.energy * 3_600_000) / periodMs);
      else if (obis === OBIS.voltageL1) values[obis] = instantaneous(m, row.ts).voltage;
      else if (obis === OBIS.currentL1) values[obis] = instantaneous(m, row.ts).current;
      else values[obis] = registers[obis]!;
    }
    return { ts: row.ts, values };
  });
}

const profileAttributes = (obis: keyof typeof PROFILE_LIMITS, read: Handler): Record<number, Handler> => ({
  2: read,
  3: (d) => ok(obis === OBIS.loadProfile ? d.captureObjects : null),
  4: (d) => ok(obis === OBIS.loadProfile ? d.capturePeriodSec : obis === OBIS.eventLog ? 0 : 86_400),
});

function relay(which: 'main' | 'external'): ObjectDef {
  const state = (d: Device) => (which === 'main' ? d.mainRelay : d.externalRelay);
  const drive =
    (target: RelayState): Handler =>
    (d, _value, ctx) => {
      // The command names the target state: reaching a state already held changes nothing and says so.
      if (state(d) !== target) {
        if (which === 'main') d.mainRelay = target;
        else d.externalRelay = target;
        const code = target === RELAY_STATES.disconnected ? EVENT.remoteDisconnection : EVENT.remoteConnection;
        ctx.emit(d, makeEvent(code, d.deviceTime(ctx.now), { relay: which, state: target }));
      }
      return ok(target);
    };
  return {
    classId: 70,
    kinds: METERS,
    get: {
      2: (d) => ok(state(d) === RELAY_STATES.connected),
      3: (d) => ok(state(d)),
      4: () => ok(1),
    },
    methods: { 1: drive(RELAY_STATES.disconnected), 2: drive(RELAY_STATES.connected) },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const TIME_OF_DAY = /^([01]\d|2[0-3]):[0-5]\d(:[0-5]\d)?$/;

/** Whole minutes that divide `span` seconds, so periods fall on the same times every day (or hour). */
const periodOk = (value: unknown, span: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 60 && value % 60 === 0 && span % value === 0;

const setCapturePeriod: Handler = (d, value) => {
  if (!periodOk(value, 86_400)) return failed;
  d.capturePeriodSec = value;
  return ok();
};

/** A meter setting a parameter template may write (`Device.settings`), checked as the meter checks it. */
function setting(classId: number, attribute: number, key: keyof Settings, valid: (v: unknown) => boolean): ObjectDef {
  const get: Record<number, Handler> = { [attribute]: (d) => ok(d.settings[key]) };
  if (classId === 3) get[3] = () => ok({ scaler: -1, unit: DLMS_UNITS.V });
  return {
    classId,
    kinds: METERS,
    get,
    set: {
      [attribute]: (d, value) => {
        if (!valid(value)) return failed;
        d.settings = { ...d.settings, [key]: value };
        return ok();
      },
    },
  };
}
const wholeIn = (min: number, max: number) => (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const DISPLAY_LIST_MAX = 32;

/** The settings of a parameter template: demand period, thresholds, display list (the capture period is the load profile's). */
const SETTING_OBJECTS: [string, ObjectDef][] = [
  [OBIS.demandPeriod, setting(1, 2, 'demandPeriodSec', (v) => periodOk(v, 3600))],
  [
    OBIS.capturePeriod,
    { classId: 1, kinds: METERS, get: { 2: (d) => ok(d.capturePeriodSec) }, set: { 2: setCapturePeriod } },
  ],
  [OBIS.voltageSagThreshold, setting(3, 2, 'voltageSagDv', wholeIn(0, 5000))],
  [OBIS.voltageSwellThreshold, setting(3, 2, 'voltageSwellDv', wholeIn(0, 5000))],
  [OBIS.limiter, setting(71, 4, 'demandLimitW', wholeIn(0, 1_000_000))],
  [
    OBIS.displayList,
    setting(
      7,
      3,
      'displayList',
      // Objects the meter has: it cannot show what it does not hold.
      (v) =>
        Array.isArray(v) &&
        v.length > 0 &&
        v.length <= DISPLAY_LIST_MAX &&
        v.every((code) => typeof code === 'string' && OBJECTS.has(code)),
    ),
  ],
];

const calendarOf = (d: Device) => {
  d.calendar ??= new MeterCalendar();
  return d.calendar;
};
const readCalendar =
  (obis: string, attribute: number): Handler =>
  (d) =>
    ok(calendarOf(d).read(obis, attribute));

/**
 * Activity calendar (class 20) and special days (class 11): attributes 2–5 (the active calendar) read
 * only; the writes of 6–10 and of the special days run together in `executeCommand`.
 */
const TOU_OBJECTS: [string, ObjectDef][] = [
  [
    OBIS.activityCalendar,
    {
      classId: ACTIVITY_CALENDAR.classId,
      kinds: METERS,
      get: Object.fromEntries(
        Object.values(ACTIVITY_CALENDAR.attributes).map((a): [number, Handler] => [
          a,
          readCalendar(OBIS.activityCalendar, a),
        ]),
      ),
      methods: {
        [ACTIVITY_CALENDAR.methods.activatePassive]: (d, _value, ctx) =>
          calendarOf(d).activatePassive(d.model!, ctx.now) ? ok() : failed,
      },
    },
  ],
  [
    OBIS.specialDays,
    {
      classId: SPECIAL_DAYS_TABLE.classId,
      kinds: METERS,
      get: {
        [SPECIAL_DAYS_TABLE.attributes.entries]: readCalendar(OBIS.specialDays, SPECIAL_DAYS_TABLE.attributes.entries),
      },
    },
  ],
];

function register(obis: string, read: (d: Device, now: number) => number): ObjectDef {
  const item = COMMON_OBIS.find((o) => o.obis === obis);
  const scalerUnit = { scaler: item?.scaler ?? 0, unit: DLMS_UNITS[item?.unit ?? 'none'] };
  return { classId: 3, kinds: METERS, get: { 2: (d, _v, ctx) => ok(read(d, ctx.now)), 3: () => ok(scalerUnit) } };
}

const registersNow = (d: Device, now: number) => registerValues(d.registersAt(now));

/**
 * Image transfer (class 18): initiate, blocks, verify, activate (image-transfer.ts). A DCU also
 * broadcasts: a block `{block, data, broadcast: identifier}` goes to every meter behind it that
 * initiated that image and hears it, each block missed by some as the fleet's broadcast loss says.
 */
const IMAGE_TRANSFER_OBJECT: ObjectDef = {
  classId: IMAGE_TRANSFER.classId,
  kinds: BOTH,
  get: {
    [IMAGE_TRANSFER.attributes.blockSize]: (d) => ok(d.image.blockSize()),
    [IMAGE_TRANSFER.attributes.transferredBlocks]: (d) => ok(d.image.transferredBits()),
    [IMAGE_TRANSFER.attributes.firstNotTransferredBlock]: (d) => ok(d.image.firstMissing()),
    [IMAGE_TRANSFER.attributes.enabled]: () => ok(true),
    [IMAGE_TRANSFER.attributes.status]: (d) => ok(d.image.status),
    [IMAGE_TRANSFER.attributes.toActivate]: (d) => ok(d.image.toActivate()),
  },
  methods: {
    [IMAGE_TRANSFER.methods.initiate]: (d, value) => (d.image.initiate(value) ? ok() : failed),
    [IMAGE_TRANSFER.methods.transferBlock]: (d, value, ctx) => {
      if (!(isPlainObject(value) && value.broadcast !== undefined)) return d.image.receive(value) ? ok() : failed;
      if (d.kind !== 'dcu' || typeof value.block !== 'number') return failed;
      for (const m of ctx.metersBehind(d))
        if (m.image.awaits(value.broadcast) && !ctx.broadcastLost(m, value.block)) m.image.receive(value);
      return ok();
    },
    [IMAGE_TRANSFER.methods.verify]: (d) => (d.image.verify(d.faults.failImageVerify) ? ok() : failed),
    [IMAGE_TRANSFER.methods.activate]: (d) => {
      const activated = d.image.activate();
      if (!activated) return failed;
      if (activated.fresh) {
        d.firmware = activated.identifier;
        d.restartAfterReply = true;
      }
      return ok();
    },
  },
};

/** A change the credit's relay depends on takes effect at once, as the meter re-evaluates. */
const thenSettle =
  (write: (d: Device, value: unknown, now: number) => boolean): Handler =>
  (d, value, ctx) => {
    if (!write(d, value, ctx.now)) return failed;
    d.settlePrepayment(ctx.now, ctx.emit);
    return ok();
  };

/**
 * Prepayment (contracts CREDIT, CHARGE, TOKEN_GATEWAY, FriendlyTimeSchema): a token entered is decoded
 * with the meter's own decoder key and answered with its status (00 accepted, 02 refused with why).
 */
const PREPAYMENT_OBJECTS: [string, ObjectDef][] = [
  [
    OBIS.tokenGateway,
    {
      classId: TOKEN_GATEWAY.classId,
      kinds: METERS,
      get: {
        [TOKEN_GATEWAY.attributes.token]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).lastToken),
        [TOKEN_GATEWAY.attributes.tokenTime]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).lastTokenTime),
        [TOKEN_GATEWAY.attributes.status]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).status),
      },
      methods: {
        [TOKEN_GATEWAY.methods.enter]: (d, value, ctx) => {
          const status = d.prepaymentOf(ctx.now).enter(value, new Date(d.deviceTime(ctx.now)).toISOString());
          d.settlePrepayment(ctx.now, ctx.emit);
          return { code: status.result === 'accepted' ? RESULT_CODES.success : RESULT_CODES.failure, value: status };
        },
      },
    },
  ],
  [
    OBIS.credit,
    {
      classId: CREDIT.classId,
      kinds: METERS,
      get: {
        [CREDIT.attributes.currentCreditAmount]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).creditCents),
        [CREDIT.attributes.overdraftLimit]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).overdraftLimit),
        [CREDIT.attributes.overdraftAllowed]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).overdraftAllowed),
      },
      set: {
        [CREDIT.attributes.overdraftLimit]: thenSettle((d, value, now) => {
          if (!wholeIn(0, CREDIT_MAX)(value)) return false;
          d.prepaymentOf(now).overdraftLimit = value as number;
          return true;
        }),
        [CREDIT.attributes.overdraftAllowed]: thenSettle((d, value, now) => {
          if (typeof value !== 'boolean') return false;
          d.prepaymentOf(now).overdraftAllowed = value;
          return true;
        }),
      },
    },
  ],
  [
    OBIS.charge,
    {
      classId: CHARGE.classId,
      kinds: METERS,
      get: { [CHARGE.attributes.unitChargeActive]: (d, _v, ctx) => ok([...d.prepaymentOf(ctx.now).prices]) },
      set: {
        [CHARGE.attributes.unitChargeActive]: thenSettle((d, value, now) => {
          const prices = UnitChargesSchema.safeParse(value);
          if (!prices.success) return false;
          d.prepaymentOf(now).prices = prices.data;
          return true;
        }),
      },
    },
  ],
  [
    OBIS.friendlyTime,
    {
      classId: 1,
      kinds: METERS,
      get: { [FRIENDLY_TIME_ATTRIBUTE]: (d, _v, ctx) => ok(d.prepaymentOf(ctx.now).friendly) },
      set: {
        [FRIENDLY_TIME_ATTRIBUTE]: thenSettle((d, value, now) => {
          const friendly = FriendlyTimeSchema.safeParse(value);
          if (!friendly.success) return false;
          d.prepaymentOf(now).friendly = friendly.data;
          return true;
        }),
      },
    },
  ],
];

const OBJECTS = new Map<string, ObjectDef>([
  [
    OBIS.clock,
    {
      classId: 8,
      kinds: BOTH,
      get: { 2: (d, _v, ctx) => ok(new Date(d.deviceTime(ctx.now)).toISOString()) },
      set: {
        2: (d, value, ctx) => {
          const target = typeof value === 'string' ? Date.parse(value) : Number.NaN;
          if (!Number.isFinite(target)) return failed;
          const before = d.deviceTime(ctx.now);
          d.setClock(ctx.now, target);
          if (Math.abs(d.clockOffsetAt(ctx.now)) <= ctx.clockLimitMs) d.clockInvalid = false;
          ctx.emit(d, makeEvent(EVENT.clockAdjustedOld, before));
          ctx.emit(d, makeEvent(EVENT.clockAdjustedNew, target));
          return ok();
        },
      },
    },
  ],
  [OBIS.serialNumber, { classId: 1, kinds: BOTH, get: { 2: (d) => ok(d.id) } }],
  [OBIS.firmwareVersion, { classId: 1, kinds: BOTH, get: { 2: (d) => ok(d.firmware) } }],
  ...[OBIS.activeImport, ...ACTIVE_IMPORT_RATES, OBIS.activeExport, OBIS.reactiveImport, OBIS.reactiveExport].map(
    (obis): [string, ObjectDef] => [obis, register(obis, (d, now) => registersNow(d, now)[obis]!)],
  ),
  [OBIS.voltageL1, register(OBIS.voltageL1, (d, now) => instantaneous(d.model!, now).voltage)],
  [OBIS.currentL1, register(OBIS.currentL1, (d, now) => instantaneous(d.model!, now).current)],
  [OBIS.activePower, register(OBIS.activePower, (d, now) => instantaneous(d.model!, now).power)],
  [
    OBIS.loadProfile,
    {
      classId: 7,
      kinds: METERS,
      get: profileAttributes(OBIS.loadProfile, profileRead(OBIS.loadProfile, loadProfileRows)),
      set: {
        3: (d, value) => {
          const list = Array.isArray(value) ? value : null;
          if (!list || list.length === 0 || !list.every((o) => typeof o === 'string' && CAPTURABLE.has(o)))
            return failed;
          d.captureObjects = [...new Set(list as string[])];
          return ok();
        },
        4: setCapturePeriod,
      },
      getValueOk: rangeOk,
    },
  ],
  [
    OBIS.dailyProfile,
    {
      classId: 7,
      kinds: METERS,
      get: profileAttributes(
        OBIS.dailyProfile,
        profileRead(OBIS.dailyProfile, (d, from, to) => {
          if ((to - from) / DAY_MS > PROFILE_LIMITS[OBIS.dailyProfile].maxRows) return null;
          return dailyRows(d.model!, from, to).map((row) => frozenValues(d, row));
        }),
      ),
      getValueOk: rangeOk,
    },
  ],
  [
    OBIS.monthlyBilling,
    {
      classId: 7,
      kinds: METERS,
      get: profileAttributes(
        OBIS.monthlyBilling,
        profileRead(OBIS.monthlyBilling, (d, from, to) => {
          if ((to - from) / (28 * DAY_MS) > PROFILE_LIMITS[OBIS.monthlyBilling].maxRows) return null;
          return monthlyRows(d.model!, from, to).map((row) => frozenValues(d, row));
        }),
      ),
      getValueOk: rangeOk,
    },
  ],
  [
    OBIS.eventLog,
    {
      classId: 7,
      kinds: BOTH,
      get: profileAttributes(
        OBIS.eventLog,
        profileRead(OBIS.eventLog, (d, from, to, ctx) => {
          const events = ctx.eventLog(d, from, to);
          return events.length > PROFILE_LIMITS[OBIS.eventLog].maxRows ? null : events;
        }),
      ),
      getValueOk: rangeOk,
    },
  ],
  [OBIS.mainRelay, relay('main')],
  [OBIS.externalRelay, relay('external')],
  [
    OBIS.account,
    {
      classId: 111,
      kinds: METERS,
      get: { 2: (d) => ok(d.paymentMode) },
      set: {
        2: (d, value, ctx) => {
          // The mode alone, or the head-end's `{paymentMode}` (headend/commands.ts).
          const mode = isPlainObject(value) ? value.paymentMode : value;
          if (!Object.values(ACCOUNT_PAYMENT_MODES).includes(mode as never)) return failed;
          // The credit stands still in credit mode: it runs from the switch on.
          d.prepaymentOf(ctx.now);
          d.paymentMode = mode as number;
          d.settlePrepayment(ctx.now, ctx.emit);
          return ok();
        },
      },
    },
  ],
  [
    OBIS.pushSetup,
    {
      classId: 40,
      kinds: METERS,
      get: { 4: (d) => ok(d.pushSchedule) },
      set: {
        4: (d, value) => {
          const times = typeof value === 'string' ? [value] : value;
          if (
            !Array.isArray(times) ||
            times.length === 0 ||
            !times.every((t) => typeof t === 'string' && TIME_OF_DAY.test(t))
          ) {
            return failed;
          }
          d.pushSchedule = times;
          return ok();
        },
      },
    },
  ],
  ...TOU_OBJECTS,
  ...SETTING_OBJECTS,
  [OBIS.imageTransfer, IMAGE_TRANSFER_OBJECT],
  ...PREPAYMENT_OBJECTS,
  [
    OBIS.dcuParameters,
    {
      classId: 1,
      kinds: DCUS,
      get: { 2: (d) => ok(d.dcuParameters) },
      set: {
        2: (d, value) => {
          if (!isPlainObject(value)) return failed;
          d.dcuParameters = { ...d.dcuParameters, ...value };
          return ok();
        },
      },
    },
  ],
  [
    OBIS.dcuTaskParameters,
    {
      classId: 1,
      kinds: DCUS,
      get: { 2: (d) => ok(d.taskParameters) },
      set: {
        2: (d, value) => {
          if (!isPlainObject(value)) return failed;
          d.taskParameters = { ...d.taskParameters, ...value };
          return ok();
        },
      },
    },
  ],
  [
    OBIS.dcuBlacklist,
    {
      classId: 1,
      kinds: DCUS,
      get: { 2: (d) => ok(d.blacklist) },
      set: {
        2: (d, value) => {
          if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) return failed;
          d.blacklist = [...value];
          return ok();
        },
      },
    },
  ],
]);

type Operation = 'get' | 'set' | 'action';

/** Whether a command item names something this device has (92 otherwise). */
function itemKnown(
  device: Device,
  op: Operation,
  item: { obis: string; classId: number; attribute: number; value?: unknown },
): boolean {
  // A set answers each item (DLMS object-undefined fails only its own item); a get or an action of
  // something the device lacks is a wrong command.
  if (op === 'set') return isObisCode(item.obis);
  const def = OBJECTS.get(item.obis);
  if (!def || def.classId !== item.classId || !def.kinds.includes(device.kind)) return false;
  if (op === 'get') return !!def.get[item.attribute] && (def.getValueOk?.(item.attribute, item.value) ?? true);
  return !!def.methods?.[item.attribute];
}

/** Runs one item. A set of an object the device lacks, or of an attribute it only reads, fails (02). */
function executeItem(
  device: Device,
  op: Operation,
  item: { obis: string; classId: number; attribute: number; value?: unknown },
  ctx: ExecutionContext,
): ItemOutcome {
  const def = OBJECTS.get(item.obis);
  if (!def || def.classId !== item.classId || !def.kinds.includes(device.kind)) return failed;
  const handler =
    op === 'get' ? def.get[item.attribute] : op === 'set' ? def.set?.[item.attribute] : def.methods?.[item.attribute];
  return handler ? handler(device, item.value, ctx) : failed;
}

/** Whether the device can run the command at all: 92 (wrong format) otherwise. */
export function wellFormed(d: Device, cmd: DeviceCommand): boolean {
  if (!Number.isFinite(Date.parse(cmd.deadline))) return false;
  if (cmd.op === 'frame') return d.kind === 'dcu' && typeof cmd.frame === 'string' && HEX_FRAME.test(cmd.frame);
  if (cmd.op === 'reboot') return d.kind === 'dcu';
  return cmd.items.length > 0 && cmd.items.every((item) => itemKnown(d, cmd.op as Operation, item));
}

/** Runs a well-formed command and answers its reply; a reboot's going away is the caller's. */
export function executeCommand(d: Device, cmd: DeviceCommand, ctx: ExecutionContext): DeviceReply {
  if (cmd.op === 'frame') {
    // A DLMS answer starts with the LLC header of a response (E6 E7 00).
    return {
      reqId: cmd.reqId,
      code: RESULT_CODES.success,
      frame: `E6E700${cmd.frame!.replace(/\s/g, '').toUpperCase()}`,
    };
  }
  if (cmd.op === 'reboot') return { reqId: cmd.reqId, code: RESULT_CODES.success };
  d.settleCalendar(ctx.now);
  d.settlePrepayment(ctx.now, ctx.emit);
  const failAll = d.faults.failNext > 0;
  if (failAll) d.faults = { ...d.faults, failNext: d.faults.failNext - 1 };
  const failCalendar = cmd.op === 'set' && d.faults.failCalendarWrites > 0 && cmd.items.some(isCalendarWrite);
  if (failCalendar) d.faults = { ...d.faults, failCalendarWrites: d.faults.failCalendarWrites - 1 };
  const faulty = (item: DeviceCommand['items'][number]) =>
    failAll || d.faults.failObis.includes(item.obis) || (failCalendar && isCalendarWrite(item));
  const calendarWrites = cmd.op === 'set' && d.model ? cmd.items.filter((i) => !faulty(i) && isCalendarWrite(i)) : [];
  const calendarCodes = calendarWrites.length > 0 ? calendarOf(d).write(calendarWrites, ctx.now) : [];
  const items: DeviceReplyItem[] = cmd.items.map((item) => {
    if (faulty(item)) return { obis: item.obis, attribute: item.attribute, code: RESULT_CODES.failure };
    const written = calendarWrites.indexOf(item);
    if (written >= 0) return { obis: item.obis, attribute: item.attribute, code: calendarCodes[written]! };
    const outcome = executeItem(d, cmd.op as Operation, item, ctx);
    return { obis: item.obis, attribute: item.attribute, ...outcome };
  });
  const succeeded = items.filter((i) => i.code === RESULT_CODES.success).length;
  const code =
    succeeded === items.length
      ? RESULT_CODES.success
      : succeeded === 0
        ? RESULT_CODES.failure
        : RESULT_CODES.partialSuccess;
  return { reqId: cmd.reqId, code, items };
}

/** The readings a meter pushes at its transfer time: the values frozen at the last midnight. */
export function frozenReadings(device: Device, now: number): DeviceReading[] {
  device.settleCalendar(now);
  const midnight = Math.floor(now / DAY_MS) * DAY_MS;
  const row = dailyRows(device.model!, midnight, midnight)[0];
  if (!row) return [];
  const { ts, values } = frozenValues(device, row);
  return Object.entries(values).map(([obis, value]) => ({ meter: device.id, obis, ts, value }));
}

/** Whether a meter's push schedule names this minute (`HH:MM`, UTC). */
export function pushesAt(device: Device, hhmm: string): boolean {
  const times = Array.isArray(device.pushSchedule) ? device.pushSchedule : [device.pushSchedule];
  return times.some((t) => typeof t === 'string' && t.slice(0, 5) === hhmm);
}
