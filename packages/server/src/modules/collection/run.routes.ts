import { runApi } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { registerOperation } from '../../http/operation';
import type { RunService } from './run.service';

export function registerRunRoutes(app: FastifyInstance, runs: RunService): void {
  registerOperation(app, runApi.runnow, ({ body, session }) => runs.runNow(body.planid, session));
  registerOperation(app, runApi.runs, ({ body, session }) => runs.list(body, session));
  registerOperation(app, runApi.run, ({ body, session }) => runs.detail(body.runId, session));
  registerOperation(app, runApi.runDevices, ({ body, session }) => runs.devices(body, session));
  registerOperation(app, runApi.gapCollect, ({ body, session }) => runs.gapCollect(body, session));
}
