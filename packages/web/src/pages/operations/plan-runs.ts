import {
  COMMAND_STATES,
  type CommandOperation,
  type CommandRecord,
  MAX_BATCH_DEVICES,
  type OperationName,
  PLAN_ITEM_TYPES,
  PlanProgressSchema,
  type PlanStatus,
  planApi,
  progressTopic,
  REALTIME_PLAN,
} from '@meterdesk/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { callApi } from '@/api/api-client';
import { followTopic } from '@/app/live/broker-topics';

/** How often the results are asked for while the broker pushes nothing, and (as a safety net) while it does. */
const POLL_MS = 2_000;
const LIVE_POLL_MS = 15_000;

/**
 * A device's row: its command record, or what is known before it arrives (queued), or what a screen's
 * own results call tells of it (a tariff push's events).
 */
export type ResultRow = Pick<CommandRecord, 'deviceKey' | 'state'> & Partial<CommandRecord>;

/** One operation (or tariff push) sent as a one-shot plan, and what its devices have answered so far. */
export interface PlanRun {
  planid: string;
  jobId: string | null;
  operation: CommandOperation;
  status: PlanStatus;
  devices: readonly string[];
  records: Readonly<Record<string, ResultRow>>;
  /** The count the last progress message gave; results it carried may have been missed. */
  pushedDone: number;
  total: number;
  live: boolean;
}

const rank = (state: CommandRecord['state']) => COMMAND_STATES.indexOf(state);

/**
 * Newer records replace older ones, keeping what the newer one does not say (a results call that
 * knows less than the message before it); a late message never takes a device back to an earlier state.
 */
function merge(run: PlanRun, records: readonly ResultRow[]): PlanRun {
  const next = { ...run.records };
  for (const record of records) {
    const known = next[record.deviceKey];
    if (!known || rank(record.state) >= rank(known.state)) next[record.deviceKey] = { ...known, ...record };
  }
  return { ...run, records: next };
}

export function runDone(run: PlanRun): number {
  const answered = Object.values(run.records).filter((record) => record.state === 'done').length;
  return Math.min(run.total, Math.max(answered, run.pushedDone));
}

/** Every device answered (or the plan waits for an approval and is not running). */
export const runFinished = (run: PlanRun) => run.status === 'pendingApproval' || runDone(run) >= run.total;

/** One row per device of the plan, in the order they were chosen. */
export function runRows(run: PlanRun): ResultRow[] {
  const keys = [...run.devices, ...Object.keys(run.records).filter((key) => !run.devices.includes(key))];
  return keys.map((deviceKey) => run.records[deviceKey] ?? { deviceKey, state: 'queued' });
}

const succeeded = (row: ResultRow) => row.resultCode === '00';
/** Devices whose command ended without success: a retry sends them the operation again. */
export const failedDevices = (run: PlanRun) =>
  runRows(run)
    .filter((row) => row.state === 'done' && !succeeded(row))
    .map((row) => row.deviceKey);

export interface RunRequest {
  operation: OperationName;
  devices: readonly string[];
  params: Record<string, unknown>;
}

/** A one-shot plan of one operation; the real-time read is the spec's 'Real-time Metering Plan'. */
export function planRequest({ operation, devices, params }: RunRequest, target: 'meter' | 'dcu') {
  const named =
    operation === 'read'
      ? { ...REALTIME_PLAN }
      : { planName: `${operation} ${new Date().toISOString().slice(0, 19).replace('T', ' ')}` };
  return {
    ...named,
    devs: { itemType: PLAN_ITEM_TYPES[target], devList: devices.slice(0, MAX_BATCH_DEVICES) },
    orders: [{ cmd: operation, params }],
    // The same click sent twice (a network retry) answers the plan it already made.
    reqId: crypto.randomUUID(),
  };
}

/** A plan's results as the operation screens read them. */
async function planResults(planid: string): Promise<readonly ResultRow[]> {
  return (await callApi(planApi.results, { planid, pageSize: 500 })).list;
}

/**
 * Plans started from a screen, followed until every device has answered: each result arrives live on
 * `progress/{jobId}`; the results call fills in what the stream missed (once at the start and at the
 * end, and every few seconds while the broker pushes nothing). A screen whose users read a plan's
 * results through a call of their own (tariff configuration) passes it as `results`.
 */
export function usePlanRuns(results: (planid: string) => Promise<readonly ResultRow[]> = planResults) {
  const [runs, setRuns] = useState<PlanRun[]>([]);
  const stops = useRef(new Map<string, () => void>());
  const readResults = useRef(results);
  readResults.current = results;

  useEffect(() => {
    const following = stops.current;
    return () => {
      for (const stop of following.values()) stop();
      following.clear();
    };
  }, []);

  const update = useCallback((planid: string, change: (run: PlanRun) => PlanRun) => {
    setRuns((previous) => previous.map((run) => (run.planid === planid ? change(run) : run)));
  }, []);

  const follow = useCallback(
    (planid: string, jobId: string, devices: number) => {
      let total = devices;
      let live = false;
      let finished = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      // One ask at a time; one wanted meanwhile (the stream ended) follows at once.
      let asking = false;
      let askAgain = false;
      const stop = () => {
        finished = true;
        clearTimeout(timer);
        stopFeed();
        stops.current.delete(planid);
      };
      const fetchResults = async () => {
        const list = await readResults.current(planid);
        if (finished) return;
        update(planid, (run) => merge(run, list));
        if (list.length >= total && list.every((record) => record.state === 'done')) stop();
      };
      const poll = async () => {
        if (asking) {
          askAgain = true;
          return;
        }
        asking = true;
        clearTimeout(timer);
        try {
          await fetchResults();
        } catch {
          // A failed ask is repeated; the rows keep what arrived meanwhile.
        }
        asking = false;
        if (finished) return;
        if (askAgain) {
          askAgain = false;
          void poll();
        } else timer = setTimeout(poll, live ? LIVE_POLL_MS : POLL_MS);
      };
      const stopFeed = followTopic(() => progressTopic(jobId), {
        onMessage: (payload) => {
          let parsed: ReturnType<typeof PlanProgressSchema.safeParse>;
          try {
            parsed = PlanProgressSchema.safeParse(
              JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)),
            );
          } catch {
            return;
          }
          if (!parsed.success || parsed.data.planid !== planid) return;
          const progress = parsed.data;
          total = progress.total || total;
          update(planid, (run) => ({
            ...merge(run, progress.results),
            pushedDone: Math.max(run.pushedDone, progress.done),
            total: progress.total || run.total,
          }));
          // The stream has ended: the results call brings any answer a lost message carried.
          if (progress.done >= progress.total) void poll();
        },
        onLive: (value) => {
          live = value;
          update(planid, (run) => ({ ...run, live: value }));
        },
      });
      stops.current.set(planid, stop);
      void poll();
    },
    [update],
  );

  /** Adds a plan the server has made (created, or retried) and follows it. */
  const adopt = useCallback(
    (
      created: { planid: string; planStatus: PlanStatus; jobId: string | null },
      operation: CommandOperation,
      devices: readonly string[],
    ): PlanRun => {
      const run: PlanRun = {
        planid: created.planid,
        jobId: created.jobId,
        operation,
        status: created.planStatus,
        devices,
        records: {},
        pushedDone: 0,
        total: devices.length,
        live: false,
      };
      setRuns((previous) => [run, ...previous.filter((r) => r.planid !== run.planid)]);
      if (created.jobId) follow(created.planid, created.jobId, devices.length);
      return run;
    },
    [follow],
  );

  /** Sends the operation; a refusal (offline meters, a busy one…) throws the server's ApiError. */
  const start = useCallback(
    async (request: RunRequest, target: 'meter' | 'dcu'): Promise<PlanRun> => {
      const created = await callApi(planApi.createplan, planRequest(request, target));
      return adopt(created, request.operation, request.devices.slice(0, MAX_BATCH_DEVICES));
    },
    [adopt],
  );

  /** The operation again, on the devices of `run` that failed. */
  const retry = useCallback(
    async (run: PlanRun): Promise<PlanRun> => {
      const created = await callApi(planApi.retry, { planid: run.planid });
      return adopt(created, run.operation, failedDevices(run));
    },
    [adopt],
  );

  return { runs, start, retry, adopt };
}
