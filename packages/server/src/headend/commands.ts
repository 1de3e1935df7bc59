import type {
  ClockSyncParamsSchema,
  DcuBlacklistParamsSchema,
  DcuParametersSchema,
  DcuTaskParametersSchema,
  FrameParamsSchema,
  ParamSyncParamsSchema,
  ReadParamsSchema,
} from '@meterdesk/contracts';
import {
  type DeviceCommandItem,
  type DeviceOp,
  OBIS,
  type ObisItem,
  type OperationName,
  PARAM_SYNC_PARTS,
  ACCOUNT_PAYMENT_MODES as PAYMENT,
  RELAY_METHODS,
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

/**
 * The device command of an operation whose parameters its schema already checked. Commands name the
 * target state (remote_disconnect, remote_reconnect), never a toggle, so a repeated command is harmless.
 */
export async function buildCommand(
  operation: OperationName,
  params: unknown,
  obis: ObisLookup,
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
