import { z } from 'zod';
import { field } from '../common/entity';

/*
 * The archive's enumerations (spec §3 and DOMAIN.md). Each value's label is
 * `<entity>.<list>.<value>` in the locales.
 */

/** The last level of GRID_TYPES (system/group.schema.ts): a transformer area. */
export const TRANSFORMER_AREA = 3;

export const CONSUMER_TYPES = ['residential', 'commercial', 'industrial'] as const;
export const PAYMENT_MODES = ['prepay', 'postpay'] as const;

/** spec: 0 meter, 1 concentrator, 2 meter (PLC module), 3 concentrator module (routing chip), 4 (4G chip), 5 (carrier chip). */
export const DEVICE_TYPES = [0, 1, 2, 3, 4, 5] as const;
export const WORKING_MODES = ['client', 'server', 'webService'] as const;

/** spec: 0 warehouse, 1 installed, 2 activate, 3 anomaly, 4 recycle, 5 maintenance. */
export const METER_STATUSES = [0, 1, 2, 3, 4, 5] as const;
export type MeterStatus = (typeof METER_STATUSES)[number];
/**
 * The life cycle *maintain* follows: stock is installed, an installed meter is activated, a
 * working meter can turn anomalous or go to maintenance, and what comes back from maintenance is
 * installed again or recycled. Recycling is final.
 */
export const METER_STATUS_TRANSITIONS: Readonly<Record<MeterStatus, readonly MeterStatus[]>> = {
  0: [1, 4],
  1: [2, 3, 5, 0],
  2: [3, 5, 4],
  3: [5, 2, 4],
  4: [],
  5: [0, 1, 2, 4],
};

/** DLMS association security (DOMAIN: Security). */
export const SECURITY_TYPES = [0, 1, 2, 3] as const;
export const AUTH_TYPES = ['none', 'lls', 'hls'] as const;
export const COMM_TYPES = ['PLC', 'RF', 'GPRS', '4G', 'NB-IoT', 'Ethernet', 'RS485'] as const;
export const INTERFACE_TYPES = ['RS485', 'optical', 'PLC', 'RF', 'M-Bus'] as const;
export const WIRINGS = ['1P2W', '3P3W', '3P4W'] as const;
export const METERING_SIDES = ['primary', 'secondary'] as const;

/** spec: 1 consumer, 2 centralized assessment point, 3 primary table, 4 solar, 5 air conditioner, 6 other. */
export const POC_NATURES = [1, 2, 3, 4, 5, 6] as const;
export const PRIMARY_TABLE_NATURE = 3;
/** 0 not synchronized, 1 synchronized, 2 changed. */
export const SYNC_STATUSES = [0, 1, 2] as const;

/**
 * A select field over `values`, labelled `<namespace>.<list>.<value>` per option.
 * Numbers and strings alike; an unknown value is refused with `invalidValue`, a missing one with `mandatory`.
 */
export function choice<const V extends string | number>(
  namespace: string,
  name: string,
  list: string,
  values: readonly V[],
) {
  const literals = values.map((v) => z.literal(v)) as unknown as [z.ZodLiteral<V>, ...z.ZodLiteral<V>[]];
  const error = (issue: { input?: unknown }) => (issue.input === undefined ? 'mandatory' : 'invalidValue');
  return field(z.union(literals, { error }) as z.ZodType<V>, {
    label: `${namespace}.fields.${name}`,
    widget: 'select',
    options: values.map((value) => ({ value, label: `${namespace}.${list}.${String(value) || 'none'}` })),
  });
}
