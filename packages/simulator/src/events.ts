import { type DeviceEvent, type DeviceKind, type EventLevel, STANDARD_EVENTS } from '@meterdesk/contracts';
import { draw, PURPOSE } from './random';

const HOUR_MS = 3_600_000;

const LEVELS = new Map<number, EventLevel>(STANDARD_EVENTS.map((e) => [e.code, e.level]));

export const EVENT = {
  powerDown: 1,
  powerUp: 2,
  clockAdjustedOld: 4,
  clockAdjustedNew: 5,
  clockInvalid: 6,
  terminalCoverOpened: 40,
  terminalCoverClosed: 41,
  meterCoverOpened: 44,
  meterCoverClosed: 45,
  manualDisconnection: 60,
  manualConnection: 61,
  remoteDisconnection: 62,
  remoteConnection: 63,
  creditExhausted: 66,
  dcuPowerDown: 80,
  dcuPowerUp: 81,
} as const;

export function levelOf(code: number): EventLevel {
  return LEVELS.get(code) ?? 'regular';
}

export function makeEvent(code: number, ms: number, data?: Record<string, unknown>): DeviceEvent {
  return { code, time: new Date(ms).toISOString(), level: levelOf(code), ...(data ? { data } : {}) };
}

export interface EventRates {
  powerOutagesPerDay: number;
  coverOpensPerDay: number;
}

/**
 * The events a device raises on its own (outages, cover openings), as a function of (seed, device,
 * hour): each hour may hold an outage and a cover opening, each followed within the hour by its
 * restoring event. The live fleet emits exactly these, and a read of the event log finds them again.
 */
export function spontaneousEvents(
  seed: number,
  key: number,
  kind: DeviceKind,
  fromMs: number,
  toMs: number,
  rates: EventRates,
): DeviceEvent[] {
  const events: DeviceEvent[] = [];
  const outage = rates.powerOutagesPerDay / 24;
  const cover = kind === 'meter' ? rates.coverOpensPerDay / 24 : 0;
  // An hour's restoring event may fall in the next hour: start one hour early.
  for (let hour = Math.floor(fromMs / HOUR_MS) - 1; hour * HOUR_MS <= toMs; hour++) {
    const start = hour * HOUR_MS;
    if (draw(seed, key, PURPOSE.powerOutage, hour) < outage) {
      const down = start + Math.floor(draw(seed, key, PURPOSE.powerOutage, hour, 1) * HOUR_MS);
      const up = down + 60_000 + Math.floor(draw(seed, key, PURPOSE.powerOutage, hour, 2) * 29 * 60_000);
      const [downCode, upCode] =
        kind === 'dcu' ? [EVENT.dcuPowerDown, EVENT.dcuPowerUp] : [EVENT.powerDown, EVENT.powerUp];
      events.push(makeEvent(downCode, down), makeEvent(upCode, up));
    }
    if (draw(seed, key, PURPOSE.cover, hour) < cover) {
      const open = start + Math.floor(draw(seed, key, PURPOSE.cover, hour, 1) * HOUR_MS);
      const closed = open + 30_000 + Math.floor(draw(seed, key, PURPOSE.cover, hour, 2) * 9 * 60_000);
      const terminal = draw(seed, key, PURPOSE.cover, hour, 3) < 0.7;
      events.push(
        makeEvent(terminal ? EVENT.terminalCoverOpened : EVENT.meterCoverOpened, open),
        makeEvent(terminal ? EVENT.terminalCoverClosed : EVENT.meterCoverClosed, closed),
      );
    }
  }
  return events
    .filter((e) => {
      const t = Date.parse(e.time);
      return t >= fromMs && t <= toMs;
    })
    .sort((a, b) => a.time.localeCompare(b.time));
}
