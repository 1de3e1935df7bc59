import type { DeviceEvent } from '@meterdesk/contracts';
import type { Device } from './device';
import type { DeviceRegistry } from './devices';
import type { Knobs } from './knobs';
import type { LinkRegistry } from './links';
import type { Scheduler } from './scheduler';
import type { Counters, SentReadings } from './stats';

/** What the simulator's parts share: its seed and knobs, its one scheduler, its counters, devices and links. */
export interface FleetParts {
  seed: number;
  knobs: Knobs;
  scheduler: Scheduler;
  counters: Counters;
  devices: DeviceRegistry;
  links: LinkRegistry;
  readings: SentReadings;
  /** An event the device records (its event log answers it) and sends if it can be heard. */
  raise(d: Device, event: DeviceEvent): void;
}
