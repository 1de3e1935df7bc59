export type { Faults } from './device';
export {
  dailyFrozen,
  type FrozenRow,
  type IntervalRow,
  intervalProfile,
  type MeterModel,
  meterDay,
  meterModel,
  monthlyFrozen,
  type Registers,
  registerAt,
  registersOf,
  type When,
  type Wiring,
} from './energy';
export { EVENT, spontaneousEvents } from './events';
export { type FleetFlags, fleetFromFlags } from './flags';
export { DEFAULT_KNOBS, type Knobs, type Latency, parseLatency } from './knobs';
export type { Log } from './links';
export {
  type DeviceHandle,
  type DeviceSnapshot,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from './simulator';
export type { SimulatorStats } from './stats';
