import { OBIS } from '@meterdesk/contracts';
import { type Device, frozenReadings, pushesAt } from './device';
import { EVENT, makeEvent, spontaneousEvents } from './events';
import type { FleetParts } from './fleet-parts';
import { type Link, topicOf } from './links';
import { draw, PURPOSE } from './random';

const FLAP_CHECK_MS = 1000;
const CLOCK_CHECK_MS = 60_000;
/** How often a prepaid meter looks at its credit: its relay opens within this of the credit running out. */
const CREDIT_CHECK_MS = 60_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

export interface ClockworkOptions extends FleetParts {
  /** Applies whether the device is online now (a flapping one comes and goes). */
  refreshOnline(d: Device, now: number): void;
}

/** The fleet's clockwork: heartbeats, flapping, clock checks, spontaneous events and pushes, on one scheduler. */
export class Clockwork {
  constructor(private readonly options: ClockworkOptions) {}

  start(): void {
    const { scheduler, devices, links } = this.options;
    for (const link of links.all) this.heartbeat(link);
    const flappers = [...devices.all()].filter((d) => d.flapping);
    this.flapTick(flappers);
    this.clockTick();
    this.creditTick();
    this.eventHour(Date.now());
    scheduler.at(nextMinute(Date.now()), () => this.pushTick());
  }

  /** Raises the clock-invalid event once the device's clock is further off than the limit. */
  checkClock(d: Device, now: number): void {
    const { knobs, raise } = this.options;
    if (d.clockInvalid || Math.abs(d.clockOffsetAt(now)) <= knobs.clockLimitSec * 1000) return;
    d.clockInvalid = true;
    raise(
      d,
      makeEvent(EVENT.clockInvalid, d.deviceTime(now), { deviationSec: Math.round(d.clockOffsetAt(now) / 1000) }),
    );
  }

  /** Meters behind a DCU push through it in one batch on the DCU's own data topic. */
  push(link: Link, meters: Device[], now: number): void {
    const { counters, links, readings } = this.options;
    const rows = meters.filter((m) => links.reachable(m)).map((m) => frozenReadings(m, now));
    const sent = rows.flat();
    if (sent.length > 0 && links.publish(link, topicOf(link.owner, 'data'), sent)) {
      counters.pushedReadings += sent.length;
      // A meter's push is its daily frozen row, as a read of the daily profile answers it.
      for (const [first] of rows) if (first) readings.count(first.meter, OBIS.dailyProfile, first.ts);
    }
  }

  private heartbeat(link: Link): void {
    const { seed, knobs, scheduler, counters, links } = this.options;
    const owner = link.owner;
    const n = link.heartbeats++;
    // A DCU's own parameters, once set, say how often it beats.
    const own = owner.dcuParameters.heartbeatSeconds;
    const period = (typeof own === 'number' && own > 0 ? own : knobs.heartbeatSec) * 1000;
    const next = period * (0.9 + 0.2 * draw(seed, owner.hash, PURPOSE.heartbeat, n));
    scheduler.after(next, () => {
      const beat = { time: new Date(owner.deviceTime(Date.now())).toISOString() };
      if (links.reachable(owner) && links.publish(link, topicOf(owner, 'heartbeat'), beat, { qos: 0 })) {
        counters.heartbeats++;
      }
      this.heartbeat(link);
    });
  }

  private flapTick(flappers: Device[]): void {
    const now = Date.now();
    for (const d of flappers) this.options.refreshOnline(d, now);
    this.options.scheduler.after(FLAP_CHECK_MS, () => this.flapTick(flappers));
  }

  private clockTick(): void {
    const now = Date.now();
    for (const d of this.options.devices.all()) this.checkClock(d, now);
    this.options.scheduler.after(CLOCK_CHECK_MS, () => this.clockTick());
  }

  private creditTick(): void {
    const now = Date.now();
    for (const d of this.options.devices.all()) if (d.prepayment) d.settlePrepayment(now, this.options.raise);
    this.options.scheduler.after(CREDIT_CHECK_MS, () => this.creditTick());
  }

  /** Schedules the spontaneous events of every device for the rest of the hour, then for the next. */
  private eventHour(fromMs: number): void {
    const { seed, knobs, scheduler, devices, links } = this.options;
    const hourEnd = (Math.floor(fromMs / HOUR_MS) + 1) * HOUR_MS;
    if (knobs.powerOutagesPerDay > 0 || knobs.coverOpensPerDay > 0) {
      for (const d of devices.all()) {
        // Not recorded: the event log recomputes them.
        for (const event of spontaneousEvents(seed, d.hash, d.kind, fromMs, hourEnd - 1, knobs)) {
          scheduler.at(Date.parse(event.time), () => links.publishEvent(d, event));
        }
      }
    }
    scheduler.at(hourEnd, () => this.eventHour(hourEnd));
  }

  private pushTick(): void {
    const now = Date.now();
    const hhmm = new Date(now).toISOString().slice(11, 16);
    for (const link of this.options.links.all) {
      const due = (link.owner.model ? [link.owner] : link.meters).filter((m) => pushesAt(m, hhmm));
      if (due.length > 0) this.push(link, due, now);
    }
    this.options.scheduler.at(nextMinute(now), () => this.pushTick());
  }
}

const nextMinute = (now: number) => (Math.floor(now / MINUTE_MS) + 1) * MINUTE_MS;
