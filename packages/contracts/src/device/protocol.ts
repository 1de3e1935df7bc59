import { z } from 'zod';
import { minutesOf, type WallClock, WEEKDAYS } from '../parameter/tou-calendar';

/*
 * The device protocol on the broker (v1, shared/DESIGN.md). Concentrators (DCUs) and directly
 * connected meters are MQTT clients; a meter behind a DCU speaks through its DCU's connection (PLC or
 * RF in the field), so its topics are published by the DCU. Payloads are JSON.
 *
 *   ami/{kind}/{key}/status     retained {online, time}; a DCU's last will is {online: false}
 *   ami/{kind}/{key}/heartbeat  {time}
 *   ami/{kind}/{key}/cmd        server → device: DeviceCommand
 *   ami/{kind}/{key}/reply      device → server: DeviceReply
 *   ami/{kind}/{key}/data       pushed readings: DeviceReading[]
 *   ami/{kind}/{key}/event      DeviceEvent
 *
 * Operations are DLMS/COSEM services (get/set/action on an OBIS code with a class id and attribute or
 * method), so a DLMS gateway can stand behind the same topics; `frame` and `reboot` are a DCU's own.
 */

export const DEVICE_KINDS = ['dcu', 'meter'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

export const DEVICE_CHANNELS = ['status', 'heartbeat', 'cmd', 'reply', 'data', 'event'] as const;
export type DeviceChannel = (typeof DEVICE_CHANNELS)[number];

/** What a device publishes; `cmd` is the head-end's alone. */
export const DEVICE_PUBLISHED: readonly DeviceChannel[] = ['status', 'heartbeat', 'reply', 'data', 'event'];

export const TOPIC_ROOT = 'ami';

/** Device keys are archive business keys: a DCU number or a meter serial. */
const DEVICE_KEY = /^[A-Za-z0-9_.-]{1,50}$/;

export const deviceTopic = (kind: DeviceKind, key: string, channel: DeviceChannel) =>
  `${TOPIC_ROOT}/${kind}/${key}/${channel}`;

/** What a device topic names; null for any other topic (or a wildcard, or a key no archive holds). */
export function parseDeviceTopic(topic: string): { kind: DeviceKind; key: string; channel: DeviceChannel } | null {
  const parts = topic.split('/');
  if (parts.length !== 4 || parts[0] !== TOPIC_ROOT) return null;
  const [, kind, key, channel] = parts as [string, string, string, string];
  if (!(DEVICE_KINDS as readonly string[]).includes(kind)) return null;
  if (!(DEVICE_CHANNELS as readonly string[]).includes(channel)) return null;
  if (!DEVICE_KEY.test(key)) return null;
  return { kind: kind as DeviceKind, key, channel: channel as DeviceChannel };
}

/** MQTT username of a device: its kind and key. The password is the device's own secret. */
export const deviceUsername = (kind: DeviceKind, key: string) => `${kind}:${key}`;
export function parseDeviceUsername(username: string): { kind: DeviceKind; key: string } | null {
  const at = username.indexOf(':');
  if (at < 0) return null;
  const kind = username.slice(0, at);
  const key = username.slice(at + 1);
  if (!(DEVICE_KINDS as readonly string[]).includes(kind) || !DEVICE_KEY.test(key)) return null;
  return { kind: kind as DeviceKind, key };
}

/** OBIS code `A-B:C.D.E.F`, each group 0–255 (the `A-B:` part is how the spec writes it). */
export const OBIS_PATTERN = /^(\d{1,3})-(\d{1,3}):(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
export function isObisCode(code: string): boolean {
  const m = OBIS_PATTERN.exec(code);
  return !!m && m.slice(1).every((g) => Number(g) <= 255);
}
/** The dotted form DLMS tools print (`1.0.1.8.0.255`) to the spec's `1-0:1.8.0.255`. */
export const obisFromDotted = (dotted: string) => {
  const [a, b, ...rest] = dotted.split('.');
  return `${a}-${b}:${rest.join('.')}`;
};

/** Well-known objects the head-end and the simulator both address. */
export const OBIS = {
  clock: '0-0:1.0.0.255',
  serialNumber: '0-0:96.1.0.255',
  firmwareVersion: '1-0:0.2.0.255',
  activeImport: '1-0:1.8.0.255',
  activeExport: '1-0:2.8.0.255',
  reactiveImport: '1-0:3.8.0.255',
  reactiveExport: '1-0:4.8.0.255',
  voltageL1: '1-0:32.7.0.255',
  currentL1: '1-0:31.7.0.255',
  activePower: '1-0:1.7.0.255',
  /** Maximum demand (+A) of the period a frozen row closes, W. */
  maxDemand: '1-0:1.6.0.255',
  loadProfile: '1-0:99.1.0.255',
  dailyProfile: '1-0:99.2.0.255',
  monthlyBilling: '1-0:98.1.0.255',
  eventLog: '0-0:99.98.0.255',
  /** Disconnect control of the main relay (class 70). */
  mainRelay: '0-0:96.3.10.255',
  /** A second disconnect control instance drives the external relay. */
  externalRelay: '0-1:96.3.10.255',
  /** Account (class 111): attribute 2 holds the payment mode (1 credit, 2 prepayment). */
  account: '0-0:19.0.0.255',
  /** Push setup (class 40) of the interval data: its schedule is the transfer time. */
  pushSetup: '0-0:25.9.0.255',
  /** Demand integration period (class 1 Data, attribute 2), seconds. */
  demandPeriod: '1-0:0.8.0.255',
  /** Recording interval of load profile 1 (class 1 Data, attribute 2), seconds: the profile's capture period. */
  capturePeriod: '1-0:0.8.4.255',
  /** Thresholds for voltage sag and swell (class 3 Register, attribute 2), decivolts. */
  voltageSagThreshold: '1-0:12.31.0.255',
  voltageSwellThreshold: '1-0:12.35.0.255',
  /** Limiter (class 71): attribute 4 is threshold_active, W. */
  limiter: '0-0:17.0.0.255',
  /** General display readout (class 7): attribute 3, its capture objects, is the display list. */
  displayList: '0-0:21.0.1.255',
  activityCalendar: '0-0:13.0.0.255',
  specialDays: '0-0:11.0.0.255',
  imageTransfer: '0-0:44.0.0.255',
  /** Prepayment (shared/DOMAIN.md): the token gateway, the credit, the unit charges, the friendly time. */
  tokenGateway: '0-0:19.40.0.255',
  credit: '0-0:19.10.0.255',
  charge: '0-0:19.20.0.255',
  friendlyTime: '0-0:128.10.0.255',
  /**
   * DCU objects (manufacturer range, class 1 Data, attribute 2): its parameters and its collection
   * task parameters (objects shaped like DcuParametersSchema and DcuTaskParametersSchema in
   * operations/operations.ts) and its blacklist (meter addresses).
   */
  dcuBlacklist: '0-0:128.1.0.255',
  dcuTaskParameters: '0-0:128.2.0.255',
  dcuParameters: '0-0:128.0.0.255',
} as const;

/**
 * The profile objects a collection task reads (class 7, by range of capture times): its collection
 * items name these. A register read periodically is pushed or read by hand, not by a task's run.
 */
export const COLLECTION_PROFILE_OBIS: readonly string[] = [
  OBIS.loadProfile,
  OBIS.dailyProfile,
  OBIS.monthlyBilling,
  OBIS.eventLog,
];

/** Active energy import (+A) of tariff rates 1–4. */
export const ACTIVE_IMPORT_RATES = ['1-0:1.8.1.255', '1-0:1.8.2.255', '1-0:1.8.3.255', '1-0:1.8.4.255'] as const;

/**
 * Activity calendar (class 20, OBIS.activityCalendar). The values are the parts of a `TouCalendar`
 * (contracts parameter/tou-calendar.ts): seasons `TouSeason[]`, week profiles `TouWeekProfile[]`, day
 * profiles `TouDayProfile[]`; the calendar name is the tariff's name and the activation time ISO 8601.
 * A push writes the passive calendar (attributes 6–10); at the activation time the meter copies it to
 * the active one (2–5), as method 1 does at once.
 */
export const ACTIVITY_CALENDAR = {
  classId: 20,
  attributes: {
    calendarNameActive: 2,
    seasonsActive: 3,
    weeksActive: 4,
    daysActive: 5,
    calendarNamePassive: 6,
    seasonsPassive: 7,
    weeksPassive: 8,
    daysPassive: 9,
    activatePassiveTime: 10,
  },
  methods: { activatePassive: 1 },
} as const;

/** Special days table (class 11, OBIS.specialDays): attribute 2 holds `TouSpecialDay[]`, a set replaces it. */
export const SPECIAL_DAYS_TABLE = { classId: 11, attributes: { entries: 2 } } as const;

/**
 * Image transfer (class 18, OBIS.imageTransfer), the firmware upgrade: initiate with
 * `{identifier, size, blockSize, sha256}` (identifier = the target version, sha256 of the whole image
 * in hex; the same image initiated again keeps the blocks received), transfer blocks `{block, data}`
 * (block numbers from 0, data base64, each `blockSize` bytes but the last; one command carries several
 * blocks as items), verify (the device checks every block arrived and the digest matches; else status
 * 4 and the item fails 02), activate (refused, 02, unless verification succeeded; the firmware
 * identifier OBIS.firmwareVersion then reads the identifier, after the device restarts into it).
 * Attribute 3 holds a bit per block received, 4 the first block not yet received, 6 the transfer
 * status, 7 the image verified and ready to activate `[{size, identifier, signature}]`.
 * Broadcast: a block sent to a DCU as `{block, data, broadcast: identifier}` goes to every meter behind
 * it that initiated that identifier (some may miss it, as over PLC); each meter's attribute 4 then says
 * what it still lacks, sent to it alone.
 */
export const IMAGE_TRANSFER = {
  classId: 18,
  attributes: { blockSize: 2, transferredBlocks: 3, firstNotTransferredBlock: 4, enabled: 5, status: 6, toActivate: 7 },
  methods: { initiate: 1, transferBlock: 2, verify: 3, activate: 4 },
} as const;
/** Class 18 attribute 6, image_transfer_status. */
export const IMAGE_TRANSFER_STATUS = {
  notInitiated: 0,
  initiated: 1,
  verificationInitiated: 2,
  verificationSuccessful: 3,
  verificationFailed: 4,
  activationInitiated: 5,
  activationSuccessful: 6,
  activationFailed: 7,
} as const;

/**
 * Token gateway (class 115, OBIS.tokenGateway): method 1 `enter` takes a 20-digit STS token (string;
 * contracts payment/sts.ts). The meter decodes it with its own decoder key and answers the item with
 * a `TokenStatus`: code 00 when accepted, 02 with the reason otherwise. Attribute 2 is the last token
 * entered, 3 when (ISO), 6 its status (`TokenStatus`, null before the first).
 */
export const TOKEN_GATEWAY = {
  classId: 115,
  attributes: { token: 2, tokenTime: 3, status: 6 },
  methods: { enter: 1 },
} as const;

/**
 * What a meter did with a token. `used`: it took this TID before. `old`: the TID is older than every
 * TID it remembers while its memory is full (TOKEN_TID_MEMORY), so it cannot tell. `corrupt`: not 20
 * digits, or the CRC fails after decryption — a mistyped digit, or a token for another meter (STS
 * refuses a wrong meter this way). `overflow`: the credit would pass the register's maximum.
 * `unsupported`: a valid token of another class or subclass than a money credit.
 */
export const TOKEN_RESULTS = ['accepted', 'used', 'old', 'corrupt', 'overflow', 'unsupported'] as const;
export type TokenResult = (typeof TOKEN_RESULTS)[number];
/** TIDs a meter remembers (the newest). */
export const TOKEN_TID_MEMORY = 50;

export const TokenStatusSchema = z.object({
  result: z.enum(TOKEN_RESULTS),
  /** Of a token that decoded (any result but `corrupt`). */
  tid: z.number().int().optional(),
  /** Cents, of a token that decoded. */
  amount: z.number().int().optional(),
  /** The credit after the token (cents), when accepted. */
  credit: z.number().int().optional(),
});
export type TokenStatus = z.infer<typeof TokenStatusSchema>;

/**
 * Credit (class 112, OBIS.credit), in cents of the currency. Attribute 2, the current credit, only
 * reads: tokens add to it, consumption draws it down at the unit charges. It goes below zero only with
 * overdraft. Attribute 6, the limit, is the overdraft limit (cents, ≥ 0; 0 = no limit) and attribute 7,
 * the credit configuration, is reduced to whether overdraft is allowed (boolean).
 * The relay (OBIS.mainRelay) opens when the credit reaches zero (with overdraft: minus the limit, or
 * never when there is none) outside the friendly time, raising 'Credit exhausted' (66) and a local
 * disconnection (60); it closes (61) once a token brings the credit above that again.
 */
export const CREDIT = {
  classId: 112,
  attributes: { currentCreditAmount: 2, overdraftLimit: 6, overdraftAllowed: 7 },
} as const;
/** The largest credit a meter holds, cents: a token that would pass it is refused (`overflow`). */
export const CREDIT_MAX = 100_000_000;

/**
 * Charge (class 113, OBIS.charge): attribute 5, the active unit charge, is the price per kWh of rates
 * 1–4 (the TOU rate registers ACTIVE_IMPORT_RATES; the active calendar says which one runs), in
 * 0.0001 of the currency (scaler −4, UNIT_CHARGE_SCALE), whole numbers ≥ 0. A set takes effect at once (no passive copy).
 */
export const CHARGE = { classId: 113, attributes: { unitChargeActive: 5 } } as const;
/** A tariff's price per kWh (at most four decimals) times this is its unit charge. */
export const UNIT_CHARGE_SCALE = 10_000;
export const UnitChargesSchema = z.array(z.number().int().min(0).max(100_000_000)).length(4);
/** Before any set: 0.9, 0.7, 0.5, 0.3 per kWh. */
export const DEFAULT_UNIT_CHARGES = [9000, 7000, 5000, 3000] as const;

const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;
/**
 * Friendly time (class 1 Data in the manufacturer range, OBIS.friendlyTime, attribute 2): when a meter
 * with no credit is not disconnected. Any of: a time of day within one of `hours` (`from` included,
 * `to` excluded; `to` before `from` runs past midnight, `to` = `from` is the whole day), a weekday in `weekdays`, a date in `holidays`.
 * The meter's clock decides, as for its TOU calendar. A set replaces the whole.
 */
export const FriendlyTimeSchema = z.strictObject({
  hours: z.array(z.strictObject({ from: z.string().regex(CLOCK_TIME), to: z.string().regex(CLOCK_TIME) })).max(8),
  weekdays: z.array(z.enum(WEEKDAYS)).max(7),
  holidays: z.array(z.string().regex(/^\d{4}-\d\d-\d\d$/)).max(366),
});
export type FriendlyTime = z.infer<typeof FriendlyTimeSchema>;
export const FRIENDLY_TIME_ATTRIBUTE = 2;
export const NO_FRIENDLY_TIME: FriendlyTime = { hours: [], weekdays: [], holidays: [] };

/** Whether a wall-clock moment falls in the friendly time. */
export function inFriendlyTime(friendly: FriendlyTime, at: WallClock): boolean {
  if (friendly.holidays.includes(at.date)) return true;
  const weekday = WEEKDAYS[(new Date(`${at.date}T00:00:00Z`).getUTCDay() + 6) % 7]!;
  if (friendly.weekdays.includes(weekday)) return true;
  const minute = minutesOf(at.time);
  return friendly.hours.some(({ from, to }) => {
    const [a, b] = [minutesOf(from), minutesOf(to)];
    return a < b ? minute >= a && minute < b : minute >= a || minute < b;
  });
}

/** Disconnect control (class 70) control_state. */
export const RELAY_STATES = { disconnected: 0, connected: 1, readyForReconnection: 2 } as const;
export type RelayState = (typeof RELAY_STATES)[keyof typeof RELAY_STATES];
/** Class 70 methods: the command names the target state, never a toggle. */
export const RELAY_METHODS = { remoteDisconnect: 1, remoteReconnect: 2 } as const;
export const ACCOUNT_PAYMENT_MODES = { credit: 1, prepayment: 2 } as const;

export const DeviceCommandItemSchema = z.object({
  obis: z.string(),
  classId: z.number().int(),
  /** get/set: the attribute; action: the method. */
  attribute: z.number().int(),
  value: z.unknown().optional(),
});
export type DeviceCommandItem = z.infer<typeof DeviceCommandItemSchema>;

export const DEVICE_OPS = ['get', 'set', 'action', 'frame', 'reboot'] as const;
export type DeviceOp = (typeof DEVICE_OPS)[number];

/** server → device on `…/cmd`. A device that sees a `reqId` again answers again and does nothing twice. */
export const DeviceCommandSchema = z.object({
  reqId: z.string().min(1).max(64),
  /** A retry sends the same `reqId` with the next attempt number: the device executes a `reqId` once. */
  attempt: z.number().int().min(1).default(1),
  op: z.enum(DEVICE_OPS),
  items: z.array(DeviceCommandItemSchema).max(64).default([]),
  /** `frame`: the hexadecimal frame to pass on unchanged. */
  frame: z.string().optional(),
  /** ISO 8601: after this the head-end no longer waits; a device may drop the command. */
  deadline: z.string(),
});
export type DeviceCommand = z.infer<typeof DeviceCommandSchema>;

/** Result codes of a plan execution (spec §4). 90, 99 and 50 are the head-end's own; devices answer the rest. */
export const RESULT_CODES = {
  success: '00',
  partialSuccess: '01',
  failure: '02',
  shadowExists: '03',
  shadowParamError: '04',
  dataNull: '05',
  offline: '90',
  busy: '91',
  wrongFormat: '92',
  shadowNotSupported: '93',
  shadowNotControllable: '94',
  shadowNotExisting: '95',
  connectionRefused: '96',
  timeout: '99',
  serverTimeout: '50',
} as const;
export type ResultCode = (typeof RESULT_CODES)[keyof typeof RESULT_CODES];
export const RESULT_CODE_VALUES = Object.values(RESULT_CODES) as [ResultCode, ...ResultCode[]];
export const ResultCodeSchema = z.enum(RESULT_CODE_VALUES);

/** One item of a reply: the value read (get) or the item's own result (set/action). */
export const DeviceReplyItemSchema = z.object({
  obis: z.string(),
  attribute: z.number().int().optional(),
  code: ResultCodeSchema.optional(),
  value: z.unknown().optional(),
});
export type DeviceReplyItem = z.infer<typeof DeviceReplyItemSchema>;

/** device → server on `…/reply`. */
export const DeviceReplySchema = z.object({
  reqId: z.string().min(1).max(64),
  code: ResultCodeSchema,
  items: z.array(DeviceReplyItemSchema).max(256).optional(),
  /** `frame`: the device's answering frame, hexadecimal. */
  frame: z.string().optional(),
  time: z.string().optional(),
});
export type DeviceReply = z.infer<typeof DeviceReplySchema>;

export const DeviceStatusSchema = z.object({ online: z.boolean(), time: z.string().optional() });
export type DeviceStatus = z.infer<typeof DeviceStatusSchema>;

/** Spec event levels. */
export const EVENT_LEVELS = ['regular', 'medium', 'severe'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

/** device → server on `…/event`: an entry of the standard event log (0-0:99.98.0.255). */
export const DeviceEventSchema = z.object({
  code: z.number().int().min(0).max(65535),
  time: z.string(),
  level: z.enum(EVENT_LEVELS),
  /** What the event carries: the relay's new state, the clock's deviation in seconds, … */
  data: z.record(z.string(), z.unknown()).optional(),
});
export type DeviceEvent = z.infer<typeof DeviceEventSchema>;

/** One pushed reading on `…/data`: an OBIS value at a capture time. */
export const DeviceReadingSchema = z.object({
  meter: z.string(),
  obis: z.string(),
  ts: z.string(),
  value: z.unknown(),
});
export type DeviceReading = z.infer<typeof DeviceReadingSchema>;

/**
 * One row of a profile (class 7, attribute 2) read by range: `get` with `value: {from, to}` (ISO
 * times, both included) answers an item whose value is these rows, oldest first. `values` holds the
 * capture objects by OBIS code (registers in their raw unit); an event log row is a DeviceEvent.
 */
export const DeviceProfileRowSchema = z.object({ ts: z.string(), values: z.record(z.string(), z.number()) });
export type DeviceProfileRow = z.infer<typeof DeviceProfileRowSchema>;
export const ProfileRangeSchema = z.object({ from: z.string(), to: z.string() });
export type ProfileRange = z.infer<typeof ProfileRangeSchema>;

/** Hexadecimal frame: pairs of hex digits, spaces between bytes allowed. */
export const HEX_FRAME = /^(?:[0-9A-Fa-f]{2})(?:\s?[0-9A-Fa-f]{2})*$/;
