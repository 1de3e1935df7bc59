export type { Faults } from './device';
export {
  dailyFrozen,
  type FrozenRow,
  type IntervalRow,
  intervalProfile,
  monthlyFrozen,
  type Registers,
  registerAt,
  type When,
  type Wiring,
} from './energy';
export { spontaneousEvents } from './events';
export { type FleetFlags, fleetFromFlags } from './flags';
export { DEFAULT_KNOBS, type Knobs, type Latency, parseLatency } from './knobs';
export {
  type DeviceHandle,
  type DeviceSnapshot,
  type Log,
  type Simulator,
  type SimulatorOptions,
  type SimulatorStats,
  startSimulator,
} from './simulator';
