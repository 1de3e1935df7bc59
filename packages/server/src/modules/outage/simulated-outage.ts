import { RESULT, type SimulatorControl } from '@meterdesk/contracts';
import type { Db } from '../../db/driver';
import { ApiError } from '../../errors/api-error';
import type { Scope } from '../../rbac/scope';
import { assertGridInScope } from '../archive/references';
import type { OutageService } from './outage.service';

/** Where control lines for the simulator go: its process's standard input (`SimulatorProcess.send`). */
export interface SimulatorChannel {
  send(control: SimulatorControl): boolean;
}

/**
 * Blackouts on request in the simulated fleet the server runs (demo and test runs): the devices
 * placed in a grid node and below are told to lose (or regain) their supply. main.ts attaches the
 * simulator once it runs; without one the call answers 409 `simulatorNotRunning`.
 */
export class SimulatedOutages {
  private channel: SimulatorChannel | null = null;

  constructor(
    private readonly db: Db,
    private readonly outages: OutageService,
  ) {}

  attach(channel: SimulatorChannel | null): void {
    this.channel = channel;
  }

  async power(scope: Scope, gridId: string, powered: boolean): Promise<{ meters: number; dcus: number }> {
    const channel = this.channel;
    if (!channel) throw new ApiError(RESULT.conflict, 'simulatorNotRunning');
    await assertGridInScope(this.db, scope, gridId);
    const { meters, dcus } = await this.outages.devicesUnder(gridId);
    if (!channel.send({ op: 'power', powered, devices: [...meters, ...dcus] }))
      throw new ApiError(RESULT.conflict, 'simulatorNotRunning');
    return { meters: meters.length, dcus: dcus.length };
  }
}
