import type { Operation } from '../common/operation';
import { eventDefinitionApi } from '../parameter/event-definition.api';
import { tariffApi } from '../parameter/tariff.api';
import { consumerApi } from './consumer.api';
import { dcuApi } from './dcu.api';
import { PRIMARY_TABLE_NATURE } from './enums';
import { meterApi } from './meter.api';
import { meterTypeApi } from './meter-type.api';
import { moduleApi } from './module.api';
import { pocApi } from './poc.api';
import { supplierApi } from './supplier.api';

/** A picker of archive records: the options call it searches and the filters it always sends. */
export interface ArchivePicker {
  operation: Operation;
  query?: Readonly<Record<string, unknown>>;
}

/**
 * Every picker of archive records, by the name a field's `lookup` gives. Each searches on the server
 * as the user types, within the caller's scope, and names the records the field holds by id.
 */
export const ARCHIVE_PICKERS = {
  suppliers: { operation: supplierApi.options },
  meterTypes: { operation: meterTypeApi.options },
  /** A module serves one meter: the others are offered. */
  freeModules: { operation: moduleApi.options, query: { free: true } },
  dcus: { operation: dcuApi.options },
  consumers: { operation: consumerApi.options },
  /** A meter measures one POC: the others are offered. */
  freeMeters: { operation: meterApi.options, query: { free: true } },
  /** Any meter in the caller's scope: a billing rule's meters, a virtual meter's members. */
  meters: { operation: meterApi.options },
  primaryTablePocs: { operation: pocApi.options, query: { nature: PRIMARY_TABLE_NATURE } },
  /** The higher-level event of an event definition. */
  eventDefinitions: { operation: eventDefinitionApi.options },
  /** A meter's or POC's tariff; the task device filter's and tariff configuration's tariff. */
  tariffs: { operation: tariffApi.options },
} as const satisfies Record<string, ArchivePicker>;
export type ArchivePickerName = keyof typeof ARCHIVE_PICKERS;
