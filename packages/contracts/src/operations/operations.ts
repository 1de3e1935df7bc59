import { z } from 'zod';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { HEX_FRAME, isObisCode } from '../device/protocol';

/**
 * Every operation an operator (or a plan) runs on a device, declared once: the button resource it
 * needs, what it acts on, the parameters it takes. The server turns an operation into the device
 * command (headend/commands.ts), the web draws its buttons and forms from this table, and a plan's
 * `orders[].cmd` names one of them.
 */

const BATCH = '/serviceRequest/batchOperation';
const DCU_OPERATING = '/parameterSetting/dcuOperating';

/** Spec §2 parameter sync modes. */
export const PARAM_SYNC_MODES = [
  'all',
  'freezePeriod',
  'transferTimeAndFreezePeriod',
  'channelAndFreezePeriod',
  'channel',
  'transferTime',
] as const;
export type ParamSyncMode = (typeof PARAM_SYNC_MODES)[number];

/** What each parameter sync mode writes to the meter. */
export const PARAM_SYNC_PARTS: Record<ParamSyncMode, readonly ('freezePeriod' | 'transferTime' | 'channel')[]> = {
  all: ['freezePeriod', 'transferTime', 'channel'],
  freezePeriod: ['freezePeriod'],
  transferTimeAndFreezePeriod: ['transferTime', 'freezePeriod'],
  channelAndFreezePeriod: ['channel', 'freezePeriod'],
  channel: ['channel'],
  transferTime: ['transferTime'],
};

/** A custom clock: an ISO date-time with its offset, a real date (`2026-02-30T…` is refused). */
const clockTime = z.iso
  .datetime({ offset: true, message: 'invalidClockTime' })
  .refine((v) => !Number.isNaN(Date.parse(v)), {
    message: 'invalidClockTime',
  });

const obisCode = z.string().refine(isObisCode, { message: 'obisFormat' });

export const ClockSyncParamsSchema = z
  .strictObject({
    /** `system`: the head-end's time when the command leaves; `custom`: `time`. */
    source: z.enum(['system', 'custom']).default('system'),
    time: clockTime.optional(),
  })
  .refine((p) => p.source === 'system' || p.time !== undefined, { message: 'mandatory', path: ['time'] });

export const ParamSyncParamsSchema = z.strictObject({
  mode: z.enum(PARAM_SYNC_MODES, 'invalidValue'),
  /** Minutes between load profile captures (the freeze period). */
  freezePeriodMinutes: z.union([z.literal(5), z.literal(15), z.literal(30), z.literal(60)]).default(15),
  /** `HH:mm` the meter pushes its data at (the transfer time). */
  transferTime: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'timeFormat')
    .default('00:05'),
  /** OBIS codes captured in the load profile (its channels); empty: those flagged channel option. */
  channels: z.array(obisCode).max(16, 'tooLong').default([]),
});

/** A parameter template's items set on the meters: a parameter sync whose values the template holds. */
export const ApplyParamTemplateParamsSchema = z.strictObject({
  templateId: field(IdSchema, { label: 'operations.params.templateId', widget: 'select', lookup: 'paramTemplates' }),
});

export const ReadParamsSchema = z.strictObject({
  /** OBIS items flagged read instantly. */
  obis: z.array(obisCode).min(1, 'mandatory').max(32, 'tooLong'),
});

export const FrameParamsSchema = z.strictObject({
  frame: z.string().trim().min(1, 'mandatory').max(2048, 'tooLong').regex(HEX_FRAME, 'hexFrame'),
});

export const DcuClockParamsSchema = ClockSyncParamsSchema;

export const DcuParametersSchema = z.strictObject({
  heartbeatSeconds: z.number().int().min(10, 'outOfRange').max(3600, 'outOfRange').optional(),
  reportPeriodMinutes: z.number().int().min(1, 'outOfRange').max(1440, 'outOfRange').optional(),
  masterStationIp: z.string().max(64, 'tooLong').optional(),
  masterStationPort: z.number().int().min(0, 'outOfRange').max(65535, 'outOfRange').optional(),
});

export const DcuTaskParametersSchema = z.strictObject({
  enabled: z.boolean(),
  taskGroup: z.number().int().min(0, 'outOfRange').max(255, 'outOfRange').optional(),
  collectPeriodMinutes: z.number().int().min(5, 'outOfRange').max(1440, 'outOfRange').optional(),
  reportPeriodMinutes: z.number().int().min(5, 'outOfRange').max(1440, 'outOfRange').optional(),
  start: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'timeFormat')
    .optional(),
  end: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'timeFormat')
    .optional(),
  maxSupplementDays: z.number().int().min(0, 'outOfRange').max(31, 'outOfRange').optional(),
});

export const DcuBlacklistParamsSchema = z.strictObject({
  /** Meter serials; the form splits on Chinese or English commas and line breaks. */
  meters: z.array(z.string().trim().min(1).max(50, 'tooLong')).max(1024, 'blacklistTooLong'),
});

const none = z.strictObject({});

export interface OperationDefinition {
  /** The device kind it acts on. */
  target: 'meter' | 'dcu';
  /** The button resource the caller needs. */
  resource: string;
  params: z.ZodType;
  /** Disconnects pass the safeguards: protected consumers refused, large batches approved by a second user. */
  disconnect?: boolean;
  /** Cuts supply, changes the meter's settings or restarts the device: the screens ask before sending it. */
  confirm?: boolean;
}

export const OPERATIONS = {
  relayDisconnect: {
    target: 'meter',
    resource: `${BATCH}/relayDisconnect`,
    params: none,
    disconnect: true,
    confirm: true,
  },
  relayConnect: { target: 'meter', resource: `${BATCH}/relayConnect`, params: none },
  externalRelayDisconnect: {
    target: 'meter',
    resource: `${BATCH}/externalRelayDisconnect`,
    params: none,
    disconnect: true,
    confirm: true,
  },
  externalRelayConnect: { target: 'meter', resource: `${BATCH}/externalRelayConnect`, params: none },
  prepaymentOn: { target: 'meter', resource: `${BATCH}/prepaymentOn`, params: none },
  prepaymentOff: { target: 'meter', resource: `${BATCH}/prepaymentOff`, params: none, confirm: true },
  clockSync: { target: 'meter', resource: `${BATCH}/clockSync`, params: ClockSyncParamsSchema },
  paramSync: { target: 'meter', resource: `${BATCH}/paramSync`, params: ParamSyncParamsSchema, confirm: true },
  applyParamTemplate: {
    target: 'meter',
    resource: `${BATCH}/applyParamTemplate`,
    params: ApplyParamTemplateParamsSchema,
    confirm: true,
  },
  read: { target: 'meter', resource: `${BATCH}/read`, params: ReadParamsSchema },
  dcuReadParameters: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: none },
  dcuSetParameters: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: DcuParametersSchema },
  dcuReadTaskParameters: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: none },
  dcuSetTaskParameters: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: DcuTaskParametersSchema },
  dcuReadBlacklist: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: none },
  dcuSetBlacklist: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: DcuBlacklistParamsSchema },
  dcuReadClock: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: none },
  dcuSetClock: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: DcuClockParamsSchema },
  dcuFrame: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: FrameParamsSchema },
  dcuReboot: { target: 'dcu', resource: `${DCU_OPERATING}/execute`, params: none, confirm: true },
} as const satisfies Record<string, OperationDefinition>;

export type OperationName = keyof typeof OPERATIONS;
export const OPERATION_NAMES = Object.keys(OPERATIONS) as [OperationName, ...OperationName[]];
export const METER_OPERATIONS = OPERATION_NAMES.filter((n) => OPERATIONS[n].target === 'meter');
export const DCU_OPERATIONS = OPERATION_NAMES.filter((n) => OPERATIONS[n].target === 'dcu');
/** The operations that cut supply: the disconnect safeguards apply to each. */
export const DISCONNECT_OPERATIONS = OPERATION_NAMES.filter((n) => {
  const definition: OperationDefinition = OPERATIONS[n];
  return definition.disconnect === true;
});

/** The button resource of every operation, once (access rules of the plan calls). */
export const OPERATION_RESOURCES = [...new Set(OPERATION_NAMES.map((n) => OPERATIONS[n].resource))];

/** Spec §5: a batch selects at most 30 devices. */
export const MAX_BATCH_DEVICES = 30;
/** The real-time read plan of spec §7. */
export const REALTIME_PLAN = { planName: 'Real-time Metering Plan', pushType: 2, pri: 5, timeout: 30 } as const;
