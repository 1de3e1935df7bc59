import type { DeviceEvent, DeviceKind, Fleet } from '@meterdesk/contracts';
import { Clockwork } from './clockwork';
import { CommandRegistry } from './commands';
import type { Device, Faults, Settings } from './device';
import { DeviceRegistry } from './devices';
import { EVENT, makeEvent } from './events';
import type { FleetParts } from './fleet-parts';
import { DEFAULT_KNOBS, type Knobs } from './knobs';
import { LinkRegistry, type Log } from './links';
import { Scheduler } from './scheduler';
import { type Counters, newCounters, SentReadings, type SimulatorStats } from './stats';

export interface SimulatorOptions {
  /** Broker URL, e.g. mqtt://127.0.0.1:1884. */
  url: string;
  fleet: Fleet;
  seed?: number;
  knobs?: Partial<Knobs>;
  log?: Log;
  /**
   * Counts the readings sent by key (a profile row, the values pushed for a meter at a time), so a
   * benchmark sees how many the devices sent again (`readingsSentAgain`). Holds every key sent: for
   * benchmarks, not a simulator left running for days.
   */
  countReadings?: boolean;
}

export interface DeviceHandle {
  kind: DeviceKind;
  key: string;
  setFault(faults: Partial<Faults>): void;
  /** Takes the device off the network (status offline, silence) or brings it back; overrides the knobs. */
  setOnline(online: boolean): void;
  /** DCUs and direct meters: the connection breaks without a goodbye, so the broker publishes the last will. */
  dropConnection(): void;
  /** Moves the device's clock this many seconds off true time (drift continues from there). */
  setClockOffset(seconds: number): void;
  emitEvent(code: number, data?: Record<string, unknown>): void;
  /** Meters: pushes the values frozen at the last midnight now, as at its transfer time. */
  pushNow(): void;
  state(): DeviceSnapshot;
}

export interface DeviceSnapshot {
  online: boolean;
  /** False during a blackout (`setPower`). */
  powered: boolean;
  reachable: boolean;
  mainRelay: number;
  externalRelay: number;
  paymentMode: number;
  clock: string;
  clockOffsetSec: number;
  firmware: string;
  capturePeriodSec: number;
  captureObjects: string[];
  pushSchedule: unknown;
  dcuParameters: Record<string, unknown>;
  taskParameters: Record<string, unknown>;
  blacklist: string[];
  /** Meters: what a parameter template sets besides the capture period (demand period, thresholds, display list). */
  settings: Settings;
  /** Meters: the calendar names (class 20 attributes 2 and 6), the armed activation time and when the last one happened. */
  calendar: {
    active: string | null;
    passive: string | null;
    activationTime: string | null;
    activatedAt: string | null;
  };
  faults: Faults;
  /** Class 18: its status, the first block it lacks, and how often it was told to activate and did. */
  image: { status: number; firstMissing: number; activateCalls: number; activations: number; activatedTwice: number };
  /** A prepaid meter's credit (cents) and the TIDs its token gateway took; null before it had any. */
  prepayment: { credit: number; tids: number[] } | null;
}

/**
 * A fleet of DCUs and meters playing the device protocol on a broker. `startSimulator` makes one; it
 * connects at once. Its parts: the devices, their links to the broker, the commands they received and
 * the clockwork of what they do unasked, all on one scheduler.
 */
export class Simulator {
  /** Resolves once every device that starts online is connected and has said so. */
  readonly ready: Promise<void>;
  private readonly knobs: Knobs;
  private readonly counters: Counters = newCounters();
  // Publishes made in one batch of due jobs leave in one write per connection.
  private readonly scheduler = new Scheduler(() => this.links.uncork());
  private readonly devices: DeviceRegistry;
  private readonly links: LinkRegistry;
  private readonly commands: CommandRegistry;
  private readonly clockwork: Clockwork;

  constructor(options: SimulatorOptions) {
    const seed = options.seed ?? 1;
    const knobs: Knobs = { ...DEFAULT_KNOBS, ...options.knobs };
    const { counters, scheduler } = this;
    this.knobs = knobs;
    this.devices = new DeviceRegistry(seed, knobs, new URL(options.url));
    this.links = new LinkRegistry({
      url: options.url,
      seed,
      log: options.log ?? (() => {}),
      scheduler,
      counters,
      onCommand: (link, topic, payload) => this.commands.receive(link, topic, payload),
    });
    const parts: FleetParts = {
      seed,
      knobs,
      scheduler,
      counters,
      devices: this.devices,
      links: this.links,
      readings: new SentReadings(counters, options.countReadings === true),
      raise: (d, event) => this.raise(d, event),
    };
    this.commands = new CommandRegistry({
      ...parts,
      reboot: (d) => this.reboot(d, this.knobs.rebootSec),
      restart: (d) => this.reboot(d, this.knobs.activationRebootSec),
    });
    this.clockwork = new Clockwork({ ...parts, refreshOnline: (d, now) => this.refreshOnline(d, now) });
    this.ready = this.links.ready;

    for (const dcu of options.fleet.dcus) {
      const owner = this.devices.add('dcu', dcu.dcuNo, null);
      const meters = dcu.meters.map((m) => this.devices.add('meter', m.devAddr, m));
      this.links.add(owner, meters, dcu.credentials);
    }
    for (const direct of options.fleet.direct)
      this.links.add(this.devices.add('meter', direct.devAddr, direct), [], direct.credentials);

    for (const link of this.links.all) if (link.owner.online) this.links.open(link);
    this.links.resolveIfReady();
    this.clockwork.start();
  }

  stats(): SimulatorStats {
    const online = { dcus: 0, meters: 0 };
    const count = { dcus: 0, meters: 0 };
    const image = { activations: 0, activatedTwice: 0, activateRepeated: 0 };
    for (const d of this.devices.all()) {
      const bucket = d.kind === 'dcu' ? 'dcus' : 'meters';
      count[bucket]++;
      if (this.links.reachable(d)) online[bucket]++;
      image.activations += d.image.activations;
      image.activatedTwice += d.image.activatedTwice;
      if (d.image.activateCalls > 1) image.activateRepeated++;
    }
    return {
      ...this.counters,
      repliesByCode: { ...this.counters.repliesByCode },
      receivedUnique: this.commands.receivedUnique,
      devices: count,
      online,
      connected: this.links.connectedCount,
      inFlight: this.commands.inFlight,
      image,
    };
  }

  /** How many times a reqId was executed (0 or 1 when all is well). */
  executions(reqId: string): number {
    return this.commands.executions(reqId);
  }

  /** Every remembered reqId with its executions, for a benchmark that checks nothing was lost or run twice. */
  executedReqIds(): Record<string, number> {
    return this.commands.executedReqIds();
  }

  device(key: string): DeviceHandle {
    const d = this.devices.get(key);
    if (!d) throw new Error(`no device ${key} in the fleet`);
    const { links, clockwork } = this;
    return {
      kind: d.kind,
      key: d.id,
      setFault(faults) {
        d.faults = { ...d.faults, ...faults };
      },
      setOnline: (online) => {
        d.forcedOnline = online;
        this.refreshOnline(d, Date.now());
      },
      dropConnection() {
        const link = links.of(d);
        if (link.owner !== d) throw new Error(`${key} speaks through its DCU and has no connection of its own`);
        link.client?.stream?.destroy();
      },
      setClockOffset(seconds) {
        const now = Date.now();
        d.setClock(now, now + seconds * 1000);
        d.clockInvalid = false;
        clockwork.checkClock(d, now);
      },
      emitEvent: (code, data) => {
        this.raise(d, makeEvent(code, d.deviceTime(Date.now()), data));
      },
      pushNow() {
        if (!d.model) throw new Error(`${key} is a DCU: its meters push`);
        clockwork.push(links.of(d), [d], Date.now());
      },
      state: () => {
        const now = Date.now();
        d.settleCalendar(now);
        d.settlePrepayment(now, (device, event) => this.raise(device, event));
        const calendar = d.calendar;
        return {
          online: d.online,
          powered: d.powered,
          reachable: links.reachable(d),
          mainRelay: d.mainRelay,
          externalRelay: d.externalRelay,
          paymentMode: d.paymentMode,
          clock: new Date(d.deviceTime(now)).toISOString(),
          clockOffsetSec: d.clockOffsetAt(now) / 1000,
          firmware: d.firmware,
          capturePeriodSec: d.capturePeriodSec,
          captureObjects: [...d.captureObjects],
          pushSchedule: d.pushSchedule,
          dcuParameters: { ...d.dcuParameters },
          taskParameters: { ...d.taskParameters },
          blacklist: [...d.blacklist],
          settings: { ...d.settings },
          calendar: {
            active: calendar?.active.name ?? null,
            passive: calendar?.passive.name ?? null,
            activationTime: calendar?.armed ? calendar.activationTime : null,
            activatedAt: calendar?.activatedAt ? new Date(calendar.activatedAt).toISOString() : null,
          },
          faults: { ...d.faults },
          image: {
            status: d.image.status,
            firstMissing: d.image.firstMissing(),
            activateCalls: d.image.activateCalls,
            activations: d.image.activations,
            activatedTwice: d.image.activatedTwice,
          },
          prepayment: d.prepayment ? { credit: d.prepayment.creditCents, tids: [...d.prepayment.tids] } : null,
        };
      },
    };
  }

  /**
   * Changes the fleet's knobs from now on: loss, latency, busy, heartbeats, clock limit, event rates
   * (which rewrite the event log's past too: it is recomputed from them). Which devices are offline,
   * flapping or drifting was drawn at start and stays.
   */
  setKnobs(changes: Partial<Knobs>): void {
    Object.assign(this.knobs, changes);
  }

  /**
   * Blacks out devices (`powered` false: meters send their last gasp and go offline, DCUs go offline
   * with their power-down) or restores them (power-up, back online). Answers how many changed and how
   * many keys the fleet does not hold.
   *
   * Meters go first, so their last gasps leave through their DCU before it goes; DCUs come back first,
   * and a meter's power-up waits for its connection. Keys the fleet does not hold are counted, not
   * refused (a device added to the archive since). Restoring a device that has supply changes nothing
   * but announces its power-up again.
   */
  setPower(keys: readonly string[], powered: boolean): { changed: number; unknown: number } {
    const targets: Device[] = [];
    let unknown = 0;
    for (const key of new Set(keys)) {
      const d = this.devices.get(key);
      if (d) targets.push(d);
      else unknown++;
    }
    const dcusFirst = (a: Device, b: Device) => (a.kind === b.kind ? 0 : a.kind === 'dcu' ? -1 : 1);
    targets.sort(powered ? dcusFirst : (a, b) => -dcusFirst(a, b));
    let changed = 0;
    for (const d of targets) {
      const now = Date.now();
      if (d.powered === powered) {
        // Told to restore a device that has supply (this simulator started while the back-office still
        // records the blackout it was told of before): it says so, which ends the outage there.
        if (powered)
          this.raiseOrHold(d, makeEvent(d.kind === 'dcu' ? EVENT.dcuPowerUp : EVENT.powerUp, d.deviceTime(now)));
        continue;
      }
      changed++;
      if (!powered && d.kind === 'meter') this.raise(d, makeEvent(EVENT.powerDown, d.deviceTime(now)));
      d.powered = powered;
      this.refreshOnline(d, now);
      if (powered && d.kind === 'meter') this.raiseOrHold(d, makeEvent(EVENT.powerUp, d.deviceTime(now)));
    }
    return { changed, unknown };
  }

  async stop(): Promise<void> {
    this.scheduler.stop();
    await this.links.stop();
  }

  /** Records the event (the device's event log answers it) and sends it if the device can be heard. */
  private raise(d: Device, event: DeviceEvent): void {
    d.record(event);
    this.links.publishEvent(d, event);
  }

  /**
   * Records the event, and sends it or holds it for the device's connection when that is not up yet
   * (a power-up while its DCU reconnects).
   */
  private raiseOrHold(d: Device, event: DeviceEvent): void {
    d.record(event);
    this.links.publishEventOrHold(d, event);
  }

  /** Applies whether the device is online now: statuses, connections, the events a DCU raises. */
  private refreshOnline(d: Device, now: number): void {
    const online = this.devices.onlineAt(d, now);
    if (d.online === online) return;
    const link = this.links.of(d);
    if (link.owner !== d) {
      d.online = online;
      this.links.publishStatus(d);
      return;
    }
    if (!online) {
      if (d.kind === 'dcu') this.raise(d, makeEvent(EVENT.dcuPowerDown, d.deviceTime(now)));
      d.online = false;
      this.links.publishStatus(d);
      void this.links.close(link);
    } else {
      d.online = true;
      this.links.open(link);
      if (d.kind === 'dcu') this.raiseOrHold(d, makeEvent(EVENT.dcuPowerUp, d.deviceTime(now)));
    }
  }

  private reboot(d: Device, seconds: number): void {
    if (seconds <= 0) return;
    d.rebooting = true;
    this.refreshOnline(d, Date.now());
    this.scheduler.after(seconds * 1000, () => {
      d.rebooting = false;
      this.refreshOnline(d, Date.now());
    });
  }
}

export function startSimulator(options: SimulatorOptions): Simulator {
  return new Simulator(options);
}
