import { ACCOUNT_PAYMENT_MODES, type DeviceKind, type FleetMeter } from '@meterdesk/contracts';
import { Device, firmwareFor } from './device';
import { DAY_MS, meterModel } from './energy';
import type { Knobs } from './knobs';
import { draw, hashString, PURPOSE } from './random';

/** The fleet's devices by key: each made with what the seed draws for it, and when it is online. */
export class DeviceRegistry {
  private readonly byKey = new Map<string, Device>();
  private readonly failsVerify: RegExp | null;
  private readonly failsCalendarOnce: RegExp | null;

  constructor(
    private readonly seed: number,
    private readonly knobs: Knobs,
    private readonly broker: URL,
  ) {
    this.failsVerify = knobs.imageVerifyFails ? new RegExp(knobs.imageVerifyFails) : null;
    this.failsCalendarOnce = knobs.calendarFailsOnce ? new RegExp(knobs.calendarFailsOnce) : null;
  }

  add(kind: DeviceKind, id: string, meter: FleetMeter | null): Device {
    const { seed, knobs } = this;
    const hash = hashString(id);
    const device = new Device(kind, id, hash, meter ? meterModel(seed, id, meter.wiring) : null);
    device.baseOffline = draw(seed, hash, PURPOSE.offline) < knobs.offline;
    device.flapping = !device.baseOffline && draw(seed, hash, PURPOSE.flapping) < knobs.flapping;
    device.firmware = firmwareFor(kind, draw(seed, hash, PURPOSE.firmware));
    if (this.failsVerify?.test(id)) device.faults = { ...device.faults, failImageVerify: true };
    if (meter && this.failsCalendarOnce?.test(id)) device.faults = { ...device.faults, failCalendarWrites: 1 };
    if (meter?.decoderKey) device.decoderKey = meter.decoderKey.toUpperCase();
    if (meter?.prepaid) {
      device.paymentMode = ACCOUNT_PAYMENT_MODES.prepayment;
      // The credit runs down from now: 20.00–200.00 unless the fleet says what the meter holds.
      const opening = meter.credit ?? 2000 + Math.floor(draw(seed, hash, PURPOSE.credit) * 18_001);
      device.prepaymentOf(Date.now(), opening, meter.tids);
    }
    const drift = knobs.driftSecPerDay;
    device.clockOffsetMs = (2 * draw(seed, hash, PURPOSE.drift) - 1) * drift * 10_000;
    device.driftPerMs = ((2 * draw(seed, hash, PURPOSE.drift, 1) - 1) * drift * 1000) / DAY_MS;
    if (kind === 'dcu') {
      // Shaped like the head-end's DcuParametersSchema and DcuTaskParametersSchema (contracts operations).
      device.dcuParameters = {
        heartbeatSeconds: knobs.heartbeatSec,
        reportPeriodMinutes: 60,
        masterStationIp: this.broker.hostname,
        masterStationPort: Number(this.broker.port || 1883),
      };
      device.taskParameters = {
        enabled: true,
        taskGroup: 1,
        collectPeriodMinutes: 15,
        reportPeriodMinutes: 60,
        start: '00:00',
        end: '23:59',
        maxSupplementDays: 3,
      };
    }
    if (this.byKey.has(id)) throw new Error(`the fleet names ${id} twice`);
    this.byKey.set(id, device);
    device.online = this.onlineAt(device, Date.now());
    return device;
  }

  get(key: string): Device | undefined {
    return this.byKey.get(key);
  }

  /** The device a topic names: its key and its kind must both match. */
  fromTopic(kind: DeviceKind, key: string): Device | undefined {
    const device = this.byKey.get(key);
    return device?.kind === kind ? device : undefined;
  }

  all(): IterableIterator<Device> {
    return this.byKey.values();
  }

  /** Whether the device is on the network now: supply first, then an override, then what the seed drew. */
  onlineAt(device: Device, now: number): boolean {
    if (!device.powered) return false;
    if (device.forcedOnline !== null) return device.forcedOnline;
    if (device.baseOffline || device.rebooting) return false;
    if (!device.flapping) return true;
    const period = this.knobs.flapPeriodSec * 1000;
    const phase = draw(this.seed, device.hash, PURPOSE.flapPhase) * period;
    const spell = Math.floor((now + phase) / period);
    return draw(this.seed, device.hash, PURPOSE.flapState, spell) >= 0.4;
  }
}
