import type {
  ApplyParamTemplateParamsSchema,
  ClockSyncParamsSchema,
  DcuBlacklistParamsSchema,
  DcuParametersSchema,
  DcuTaskParametersSchema,
  FrameParamsSchema,
  ParamSyncParamsSchema,
  ReadParamsSchema,
} from '@meterdesk/contracts';
import {
  ACTIVITY_CALENDAR,
  type DeviceCommandItem,
  type DeviceOp,
  OBIS,
  type ObisItem,
  type OperationName,
  PARAM_SYNC_PARTS,
  ACCOUNT_PAYMENT_MODES as PAYMENT,
  RELAY_METHODS,
  SPECIAL_DAYS_TABLE,
  type TouCalendar,
} from '@meterdesk/contracts';
import type { z } from 'zod';
import { fieldError } from '../errors/api-error';
import type { ImageRef } from './image-blocks';

/** What the head-end stores of a command: the device sees it with its reqId, attempt and deadline. */
export interface StoredCommand {
  op: DeviceOp;
  items: DeviceCommandItem[];
  frame?: string;
  /** A clock item set to the system time takes the time the command leaves, not when it was asked. */
  systemClock?: boolean;
  /** Image blocks: the items name block numbers, and the bytes of this image are added as it leaves. */
  image?: ImageRef;
}

/** The OBIS catalogue the commands are built from (modules/parameter/obis-catalogue.ts). */
export interface ObisLookup {
  byCodes(codes: readonly string[]): Promise<Map<string, ObisItem>>;
  channels(): Promise<string[]>;
}

/** A parameter template as a command takes it (modules/parameter/param-templates.ts). */
export interface ParamTemplateLookup {
  /**
   * The template's meter type and its items as set items, or undefined when there is none; `items` is
   * undefined when one of them can no longer be set (its catalogue item changed or went since the save).
   */
  paramTemplate(id: string): Promise<{ meterTypeId: string; items: DeviceCommandItem[] | undefined } | undefined>;
}

/** Commands of operations that take no template: none is found. */
const NO_TEMPLATES: ParamTemplateLookup = { paramTemplate: async () => undefined };

const DATA_CLASS = 1;
const CLOCK = { obis: OBIS.clock, classId: 8, attribute: 2 };

const relay = (obis: string, method: number): StoredCommand => ({
  op: 'action',
  items: [{ obis, classId: 70, attribute: method }],
});
const setAccount = (mode: number): StoredCommand => ({
  op: 'set',
  items: [{ obis: OBIS.account, classId: 111, attribute: 2, value: { paymentMode: mode } }],
});
const get = (obis: string, classId = DATA_CLASS, attribute = 2): StoredCommand => ({
  op: 'get',
  items: [{ obis, classId, attribute }],
});
const set = (obis: string, value: unknown, classId = DATA_CLASS, attribute = 2): StoredCommand => ({
  op: 'set',
  items: [{ obis, classId, attribute, value }],
});

function setClock(params: z.infer<typeof ClockSyncParamsSchema>): StoredCommand {
  if (params.source === 'system') return { op: 'set', items: [{ ...CLOCK }], systemClock: true };
  return { op: 'set', items: [{ ...CLOCK, value: params.time }] };
}

async function paramSync(params: z.infer<typeof ParamSyncParamsSchema>, obis: ObisLookup): Promise<StoredCommand> {
  const items: DeviceCommandItem[] = [];
  for (const part of PARAM_SYNC_PARTS[params.mode]) {
    if (part === 'freezePeriod')
      items.push({ obis: OBIS.loadProfile, classId: 7, attribute: 4, value: params.freezePeriodMinutes * 60 });
    if (part === 'transferTime')
      items.push({ obis: OBIS.pushSetup, classId: 40, attribute: 4, value: params.transferTime });
    if (part === 'channel') {
      const channels = params.channels.length ? params.channels : await obis.channels();
      items.push({ obis: OBIS.loadProfile, classId: 7, attribute: 3, value: channels });
    }
  }
  return { op: 'set', items };
}

async function read(params: z.infer<typeof ReadParamsSchema>, obis: ObisLookup): Promise<StoredCommand> {
  const entries = await obis.byCodes(params.obis);
  const items = params.obis.map((code) => {
    const entry = entries.get(code);
    if (!entry?.readInstantly) throw fieldError(400, 'orders.0.params.obis', 'obisNotReadable');
    return { obis: entry.obis, classId: entry.classId, attribute: entry.attribute };
  });
  return { op: 'get', items };
}

/** The template's items, set in one command in the template's order. */
async function applyParamTemplate(
  params: z.infer<typeof ApplyParamTemplateParamsSchema>,
  templates: ParamTemplateLookup,
): Promise<StoredCommand> {
  const template = await templates.paramTemplate(params.templateId);
  if (!template) throw fieldError(400, 'orders.0.params.templateId', 'paramTemplateNotFound');
  if (!template.items) throw fieldError(400, 'orders.0.params.templateId', 'paramTemplateStale');
  return { op: 'set', items: template.items };
}

/**
 * The device command of an operation whose parameters its schema already checked. Commands name the
 * target state (remote_disconnect, remote_reconnect), never a toggle, so a repeated command is harmless.
 */
export async function buildCommand(
  operation: OperationName,
  params: unknown,
  obis: ObisLookup,
  templates: ParamTemplateLookup = NO_TEMPLATES,
): Promise<StoredCommand> {
  switch (operation) {
    case 'relayDisconnect':
      return relay(OBIS.mainRelay, RELAY_METHODS.remoteDisconnect);
    case 'relayConnect':
      return relay(OBIS.mainRelay, RELAY_METHODS.remoteReconnect);
    case 'externalRelayDisconnect':
      return relay(OBIS.externalRelay, RELAY_METHODS.remoteDisconnect);
    case 'externalRelayConnect':
      return relay(OBIS.externalRelay, RELAY_METHODS.remoteReconnect);
    case 'prepaymentOn':
      return setAccount(PAYMENT.prepayment);
    case 'prepaymentOff':
      return setAccount(PAYMENT.credit);
    case 'clockSync':
    case 'dcuSetClock':
      return setClock(params as z.infer<typeof ClockSyncParamsSchema>);
    case 'paramSync':
      return paramSync(params as z.infer<typeof ParamSyncParamsSchema>, obis);
    case 'applyParamTemplate':
      return applyParamTemplate(params as z.infer<typeof ApplyParamTemplateParamsSchema>, templates);
    case 'read':
      return read(params as z.infer<typeof ReadParamsSchema>, obis);
    case 'dcuReadParameters':
      return get(OBIS.dcuParameters);
    case 'dcuSetParameters':
      return set(OBIS.dcuParameters, params as z.infer<typeof DcuParametersSchema>);
    case 'dcuReadTaskParameters':
      return get(OBIS.dcuTaskParameters);
    case 'dcuSetTaskParameters':
      return set(OBIS.dcuTaskParameters, params as z.infer<typeof DcuTaskParametersSchema>);
    case 'dcuReadBlacklist':
      return get(OBIS.dcuBlacklist);
    case 'dcuSetBlacklist':
      return set(OBIS.dcuBlacklist, (params as z.infer<typeof DcuBlacklistParamsSchema>).meters);
    case 'dcuReadClock':
      return get(CLOCK.obis, CLOCK.classId, CLOCK.attribute);
    case 'dcuFrame':
      return {
        op: 'frame',
        items: [],
        frame: (params as z.infer<typeof FrameParamsSchema>).frame.replace(/\s+/g, '').toUpperCase(),
      };
    case 'dcuReboot':
      return { op: 'reboot', items: [] };
  }
}

/**
 * A tariff push: one set of the passive activity calendar (class 20 attributes 6–10: the tariff's name,
 * seasons, week and day profiles, the activation time) and the special days table (class 11). The meter
 * makes the passive calendar active at the activation time.
 */
export function tariffCommand(name: string, calendar: TouCalendar, activation: Date): StoredCommand {
  const { classId, attributes: a } = ACTIVITY_CALENDAR;
  const passive = (attribute: number, value: unknown): DeviceCommandItem => ({
    obis: OBIS.activityCalendar,
    classId,
    attribute,
    value,
  });
  return {
    op: 'set',
    items: [
      passive(a.calendarNamePassive, name),
      passive(a.seasonsPassive, calendar.seasons),
      passive(a.weeksPassive, calendar.weeks),
      passive(a.daysPassive, calendar.days),
      passive(a.activatePassiveTime, activation.toISOString()),
      {
        obis: OBIS.specialDays,
        classId: SPECIAL_DAYS_TABLE.classId,
        attribute: SPECIAL_DAYS_TABLE.attributes.entries,
        value: calendar.specialDays,
      },
    ],
  };
}
