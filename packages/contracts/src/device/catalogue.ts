import type { EventLevel } from './protocol';
import { OBIS } from './protocol';

/** DLMS unit codes (IEC 62056-6-2) the catalogue uses. */
export const DLMS_UNITS = { s: 7, W: 27, var: 29, Wh: 30, varh: 32, A: 33, V: 35, Hz: 44, none: 255 } as const;
export type DlmsUnitName = keyof typeof DLMS_UNITS;

/** What an OBIS item may be used for (spec §3 OBIS item flags). */
export interface ObisFlags {
  channelOption: boolean;
  thresholdOption: boolean;
  settingChannel: boolean;
  displayOption: boolean;
  readInstantly: boolean;
  readPeriodically: boolean;
}

export interface CommonObisItem {
  obis: string;
  classId: number;
  attribute: number;
  description: string;
  unit: DlmsUnitName;
  /** Power of ten: the value shown is raw × 10^scaler. */
  scaler: number;
  cgName: string;
  flags: Partial<ObisFlags>;
}

const register = (obis: string, cgName: string, description: string, unit: DlmsUnitName, scaler: number) =>
  ({
    obis,
    classId: 3,
    attribute: 2,
    description,
    unit,
    scaler,
    cgName,
    flags: { channelOption: true, displayOption: true, readInstantly: true, readPeriodically: true },
  }) satisfies CommonObisItem;

const setting = (
  obis: string,
  classId: number,
  attribute: number,
  cgName: string,
  description: string,
  unit: DlmsUnitName,
  scaler: number,
  threshold = false,
) =>
  ({
    obis,
    classId,
    attribute,
    description,
    unit,
    scaler,
    cgName,
    flags: { settingChannel: true, ...(threshold ? { thresholdOption: true } : {}) },
  }) satisfies CommonObisItem;

/**
 * The common objects of shared/DOMAIN.md: seeded into the OBIS catalogue, read by the head-end,
 * answered by the simulator. Registers hold raw integers; energy registers count Wh with scaler 0
 * here and the simulator reports them in Wh.
 */
export const COMMON_OBIS: readonly CommonObisItem[] = [
  {
    obis: OBIS.clock,
    classId: 8,
    attribute: 2,
    description: 'Clock',
    unit: 'none',
    scaler: 0,
    cgName: 'clock',
    flags: { readInstantly: true, settingChannel: true, displayOption: true },
  },
  {
    obis: OBIS.serialNumber,
    classId: 1,
    attribute: 2,
    description: 'Meter serial number',
    unit: 'none',
    scaler: 0,
    cgName: 'serialNumber',
    flags: { readInstantly: true, displayOption: true },
  },
  {
    obis: OBIS.firmwareVersion,
    classId: 1,
    attribute: 2,
    description: 'Active firmware identifier',
    unit: 'none',
    scaler: 0,
    cgName: 'firmwareVersion',
    flags: { readInstantly: true, displayOption: true },
  },
  register(OBIS.activeImport, 'activeImport', 'Active energy import (+A) total', 'Wh', 0),
  register('1-0:1.8.1.255', 'activeImportT1', 'Active energy import (+A) rate 1', 'Wh', 0),
  register('1-0:1.8.2.255', 'activeImportT2', 'Active energy import (+A) rate 2', 'Wh', 0),
  register('1-0:1.8.3.255', 'activeImportT3', 'Active energy import (+A) rate 3', 'Wh', 0),
  register('1-0:1.8.4.255', 'activeImportT4', 'Active energy import (+A) rate 4', 'Wh', 0),
  register(OBIS.activeExport, 'activeExport', 'Active energy export (-A) total', 'Wh', 0),
  register(OBIS.reactiveImport, 'reactiveImport', 'Reactive energy import (+R) total', 'varh', 0),
  register(OBIS.reactiveExport, 'reactiveExport', 'Reactive energy export (-R) total', 'varh', 0),
  register(OBIS.voltageL1, 'voltageL1', 'Instantaneous voltage L1', 'V', -1),
  register(OBIS.currentL1, 'currentL1', 'Instantaneous current L1', 'A', -3),
  register(OBIS.activePower, 'activePower', 'Instantaneous active power import', 'W', 0),
  {
    // Only a column of the frozen rows (stored in W): the readings screens take its unit from here.
    // Not offered to read on its own: the devices answer it as part of their frozen profiles.
    obis: OBIS.maxDemand,
    classId: 4,
    attribute: 2,
    description: 'Maximum demand (+A) of the frozen period',
    unit: 'W',
    scaler: 0,
    cgName: 'maxDemand',
    flags: {},
  },
  {
    obis: OBIS.loadProfile,
    classId: 7,
    attribute: 2,
    description: 'Load profile 1 (15-minute interval)',
    unit: 'none',
    scaler: 0,
    cgName: 'loadProfile',
    flags: { readPeriodically: true },
  },
  {
    obis: OBIS.dailyProfile,
    classId: 7,
    attribute: 2,
    description: 'Load profile 2 (daily frozen)',
    unit: 'none',
    scaler: 0,
    cgName: 'dailyFrozen',
    flags: { readPeriodically: true },
  },
  {
    obis: OBIS.monthlyBilling,
    classId: 7,
    attribute: 2,
    description: 'Monthly billing values',
    unit: 'none',
    scaler: 0,
    cgName: 'monthlyFrozen',
    flags: { readPeriodically: true },
  },
  {
    obis: OBIS.eventLog,
    classId: 7,
    attribute: 2,
    description: 'Standard event log',
    unit: 'none',
    scaler: 0,
    cgName: 'eventLog',
    flags: { readPeriodically: true },
  },
  {
    obis: OBIS.mainRelay,
    classId: 70,
    attribute: 3,
    description: 'Disconnect control (main relay): control state',
    unit: 'none',
    scaler: 0,
    cgName: 'mainRelayState',
    flags: { readInstantly: true, displayOption: true },
  },
  {
    obis: OBIS.externalRelay,
    classId: 70,
    attribute: 3,
    description: 'Disconnect control (external relay): control state',
    unit: 'none',
    scaler: 0,
    cgName: 'externalRelayState',
    flags: { readInstantly: true, displayOption: true },
  },
  {
    obis: OBIS.account,
    classId: 111,
    attribute: 2,
    description: 'Account: payment mode and status',
    unit: 'none',
    scaler: 0,
    cgName: 'paymentMode',
    flags: { readInstantly: true, settingChannel: true },
  },
  {
    obis: OBIS.pushSetup,
    classId: 40,
    attribute: 4,
    description: 'Push setup: transfer time',
    unit: 'none',
    scaler: 0,
    cgName: 'transferTime',
    flags: { settingChannel: true },
  },
  // What a parameter template sets (parameter/param-template.schema.ts): flagged setting channel.
  setting(OBIS.demandPeriod, 1, 2, 'demandPeriod', 'Demand integration period', 's', 0),
  setting(OBIS.capturePeriod, 1, 2, 'capturePeriod', 'Load profile 1 capture period', 's', 0),
  setting(OBIS.voltageSagThreshold, 3, 2, 'voltageSagThreshold', 'Threshold for voltage sag', 'V', -1, true),
  setting(OBIS.voltageSwellThreshold, 3, 2, 'voltageSwellThreshold', 'Threshold for voltage swell', 'V', -1, true),
  setting(OBIS.limiter, 71, 4, 'demandLimit', 'Limiter: active power threshold', 'W', 0, true),
  setting(OBIS.displayList, 7, 3, 'displayList', 'Display list: the objects the meter shows in turn', 'none', 0),
  {
    obis: OBIS.activityCalendar,
    classId: 20,
    attribute: 10,
    description: 'Activity calendar (TOU)',
    unit: 'none',
    scaler: 0,
    cgName: 'activityCalendar',
    flags: { settingChannel: true },
  },
  {
    obis: '0-0:11.0.0.255',
    classId: 11,
    attribute: 2,
    description: 'Special days table',
    unit: 'none',
    scaler: 0,
    cgName: 'specialDays',
    flags: { settingChannel: true },
  },
  {
    obis: '0-0:44.0.0.255',
    classId: 18,
    attribute: 6,
    description: 'Image transfer (firmware)',
    unit: 'none',
    scaler: 0,
    cgName: 'imageTransfer',
    flags: {},
  },
  {
    obis: '0-0:19.40.0.255',
    classId: 115,
    attribute: 2,
    description: 'Token gateway (prepayment)',
    unit: 'none',
    scaler: 0,
    cgName: 'tokenGateway',
    flags: {},
  },
];

export interface StandardEvent {
  code: number;
  name: string;
  level: EventLevel;
  description: string;
}

/**
 * Standard event log codes the simulator emits and the event definitions seed (numbering after the
 * IDIS standard and disconnector logs).
 */
export const STANDARD_EVENTS: readonly StandardEvent[] = [
  { code: 1, name: 'Power down', level: 'severe', description: 'All phases lost their supply' },
  { code: 2, name: 'Power up', level: 'regular', description: 'Supply restored' },
  { code: 4, name: 'Clock adjusted (old time)', level: 'regular', description: 'The clock was set; the time before' },
  { code: 5, name: 'Clock adjusted (new time)', level: 'regular', description: 'The clock was set; the time after' },
  { code: 6, name: 'Clock invalid', level: 'medium', description: 'The clock deviates beyond its limit' },
  { code: 40, name: 'Terminal cover opened', level: 'severe', description: 'Possible tampering' },
  { code: 41, name: 'Terminal cover closed', level: 'regular', description: 'The terminal cover was closed' },
  { code: 44, name: 'Meter cover opened', level: 'severe', description: 'Possible tampering' },
  { code: 45, name: 'Meter cover closed', level: 'regular', description: 'The meter cover was closed' },
  { code: 60, name: 'Manual disconnection', level: 'medium', description: 'The relay was opened at the meter' },
  { code: 61, name: 'Manual connection', level: 'regular', description: 'The relay was closed at the meter' },
  { code: 62, name: 'Remote disconnection', level: 'medium', description: 'The relay was opened by a command' },
  { code: 63, name: 'Remote connection', level: 'regular', description: 'The relay was closed by a command' },
  { code: 66, name: 'Credit exhausted', level: 'medium', description: 'Prepaid credit ran out' },
  { code: 80, name: 'Concentrator power down', level: 'severe', description: 'The DCU lost its supply' },
  { code: 81, name: 'Concentrator power up', level: 'regular', description: 'The DCU restarted' },
];

/**
 * The standard events that say a device lost or regained its supply: a meter's power-down is its
 * "last gasp". The outage state (`device_power`) is kept from these alone.
 */
export const POWER_EVENTS = {
  meter: { down: 1, up: 2 },
  dcu: { down: 80, up: 81 },
} as const;
