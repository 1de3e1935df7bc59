/** How the fleet misbehaves and how often things happen. Every share is drawn per device from the seed. */
export interface Knobs {
  /** Share of devices offline from the start. */
  offline: number;
  /** Share of devices that go offline and come back. */
  flapping: number;
  /** Length of a flapping device's online or offline spell, seconds. */
  flapPeriodSec: number;
  /** Share of commands lost on the way in, and, drawn again, of replies lost on the way out. */
  loss: number;
  /** Command execution time, ms: most near the median, a long tail up to the maximum. */
  latency: Latency;
  /** Largest clock drift, seconds per day (each device draws its own within ±). */
  driftSecPerDay: number;
  /** A clock further off than this raises the clock-invalid event, seconds. */
  clockLimitSec: number;
  /** Share of commands answered busy (91). */
  busy: number;
  heartbeatSec: number;
  /** How long a rebooting DCU stays away, seconds. */
  rebootSec: number;
  /** How long a device stays away after activating a firmware image (it restarts into it), seconds; 0 stays. */
  activationRebootSec: number;
  /** Share of a DCU's broadcast image blocks each meter misses (it fills them peer to peer). */
  imageBroadcastLoss: number;
  /**
   * Devices whose key matches this regular expression fail image verification (`failImageVerify`),
   * e.g. `^M0003$` for one demo meter; empty, none.
   */
  imageVerifyFails: string;
  /** Meters whose key matches this regular expression fail their first calendar write (class 20/11, 02); empty, none. */
  calendarFailsOnce: string;
  /** Power outages and cover openings per device per day. */
  powerOutagesPerDay: number;
  coverOpensPerDay: number;
  /** How many reqIds a device remembers with their replies (oldest forgotten first). */
  rememberedCommands: number;
  /**
   * A reqId asked again is answered from the stored reply, as a real device does. Off, every command
   * received is executed again: what the head-end alone sends twice then shows as `executedTwice`.
   */
  dedupe: boolean;
}

export interface Latency {
  min: number;
  median: number;
  max: number;
}

export const DEFAULT_KNOBS: Knobs = {
  offline: 0,
  flapping: 0,
  flapPeriodSec: 300,
  loss: 0,
  latency: { min: 200, median: 800, max: 3000 },
  driftSecPerDay: 2,
  clockLimitSec: 60,
  busy: 0,
  heartbeatSec: 60,
  rebootSec: 5,
  activationRebootSec: 2,
  imageBroadcastLoss: 0,
  imageVerifyFails: '',
  calendarFailsOnce: '',
  powerOutagesPerDay: 0.02,
  coverOpensPerDay: 0.005,
  rememberedCommands: 200_000,
  dedupe: true,
};

/** `min:median:max` in ms, e.g. `200:800:3000`. */
export function parseLatency(text: string): Latency {
  const parts = text.split(':').map(Number);
  const [min, median, max] = parts;
  if (
    parts.length !== 3 ||
    !parts.every((n) => Number.isFinite(n) && n >= 0) ||
    min === undefined ||
    median === undefined ||
    max === undefined ||
    !(min <= median && median <= max)
  ) {
    throw new RangeError(`latency must be min:median:max in ms with min ≤ median ≤ max, not ${text}`);
  }
  return { min, median, max };
}

/** A delay from a uniform draw: half below the median, crowding towards it, half above it with a thinning tail. */
export function latencyFrom(latency: Latency, u: number): number {
  const { min, median, max } = latency;
  if (u < 0.5) return min + (median - min) * (1 - (1 - 2 * u) ** 2);
  return median + (max - median) * (2 * u - 1) ** 3;
}
