import type { ResultCode } from '@meterdesk/contracts';

export interface SimulatorStats {
  /** Command messages that reached a device's connection. */
  received: number;
  /** Distinct (reqId, attempt) pairs received. */
  receivedUnique: number;
  /** A (reqId, attempt) received again: the head-end sent the same attempt twice. */
  duplicateSends: number;
  /** Distinct reqIds executed, and executions of a reqId already executed (must stay 0). */
  executed: number;
  executedTwice: number;
  /** A reqId already executed (or executing) asked again: answered from the stored reply. */
  replayed: number;
  repliesSent: number;
  repliesByCode: Partial<Record<ResultCode, number>>;
  /** Not JSON, or no reqId to answer to. */
  malformed: number;
  wrongFormat: number;
  busy: number;
  /** Ignored because the device is offline or silent. */
  silent: number;
  droppedCommands: number;
  droppedReplies: number;
  /** Past their deadline when they arrived. */
  expired: number;
  events: number;
  /** Readings pushed on `…/data` at the meters' transfer times. */
  pushedReadings: number;
  /** With `countReadings`: profile rows answered and pushed rows sent, and those whose key had been sent before. */
  readingsSent: number;
  readingsSentAgain: number;
  heartbeats: number;
  statuses: number;
  connects: number;
  connectionLosses: number;
  devices: { dcus: number; meters: number };
  online: { dcus: number; meters: number };
  connected: number;
  /** Commands being executed now. */
  inFlight: number;
  /**
   * Firmware images activated, devices that activated an image they had activated before, and devices
   * told to activate (class 18 method 4) the image they hold more than once: the last two must stay 0.
   */
  image: { activations: number; activatedTwice: number; activateRepeated: number };
}

/** The stats counted as things happen; the others are read from the fleet when asked. */
export type Counters = Omit<
  SimulatorStats,
  'devices' | 'online' | 'connected' | 'inFlight' | 'receivedUnique' | 'image'
>;

export const newCounters = (): Counters => ({
  received: 0,
  duplicateSends: 0,
  executed: 0,
  executedTwice: 0,
  replayed: 0,
  repliesSent: 0,
  repliesByCode: {},
  malformed: 0,
  wrongFormat: 0,
  busy: 0,
  silent: 0,
  droppedCommands: 0,
  droppedReplies: 0,
  expired: 0,
  events: 0,
  pushedReadings: 0,
  readingsSent: 0,
  readingsSentAgain: 0,
  heartbeats: 0,
  statuses: 0,
  connects: 0,
  connectionLosses: 0,
});

/**
 * Counts the readings sent by key (meter, source, time), so a benchmark sees how many were sent again.
 * Off, it counts nothing: it holds every key sent, which a simulator left running for days must not.
 */
export class SentReadings {
  private readonly keys: Set<string> | null;

  constructor(
    private readonly counters: Counters,
    on: boolean,
  ) {
    this.keys = on ? new Set() : null;
  }

  get counting(): boolean {
    return this.keys !== null;
  }

  count(meter: string, source: string, ts: string): void {
    if (!this.keys) return;
    this.counters.readingsSent++;
    const key = `${meter}\u0000${source}\u0000${ts}`;
    if (this.keys.has(key)) this.counters.readingsSentAgain++;
    else this.keys.add(key);
  }
}
