import type { Fleet, FleetMeter } from '@meterdesk/contracts';
import { draw, hashString, PURPOSE } from './random';

export interface FleetFlags {
  dcus: number;
  metersPerDcu: number;
  direct?: number;
  seed?: number;
  /** Starts every key, so two fleets on one broker do not collide. */
  prefix?: string;
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

function meter(seed: number, devAddr: string, threePhaseShare: number): FleetMeter {
  const key = hashString(devAddr);
  const wiring = draw(seed, key, PURPOSE.wiring) < threePhaseShare ? '3P4W' : '1P2W';
  return { devAddr, wiring, prepaid: draw(seed, key, PURPOSE.prepaid) < 0.3 };
}

/** A fleet without an archive: mostly households behind DCUs, direct meters mostly commercial. */
export function fleetFromFlags({ dcus, metersPerDcu, direct = 0, seed = 1, prefix = 'SIM' }: FleetFlags): Fleet {
  return {
    version: 1,
    dcus: Array.from({ length: dcus }, (_, d) => ({
      dcuNo: `${prefix}-D${pad(d + 1, 4)}`,
      meters: Array.from({ length: metersPerDcu }, (_, m) =>
        meter(seed, `${prefix}-M${pad(d + 1, 4)}${pad(m + 1, 4)}`, 0.1),
      ),
    })),
    direct: Array.from({ length: direct }, (_, i) => meter(seed, `${prefix}-X${pad(i + 1, 6)}`, 0.7)),
  };
}
