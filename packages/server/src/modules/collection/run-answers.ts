import { COLLECT_CMD, DeviceEventSchema, DeviceProfileRowSchema, OBIS, RESULT_CODES } from '@meterdesk/contracts';
import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/driver';
import { collectionRunDevice, deviceCommand } from '../../db/schema';
import type { CommandRow } from '../../headend/head-end';
import type { ReadingIngest } from '../../readings/ingest';
import {
  type ClockCheckRow,
  dailyRows,
  meterEventRows,
  monthlyRows,
  profileRows,
  type ReadingBatch,
} from '../../readings/rows';
import { DEVICES_PER_STATEMENT, type RunBookkeeping, type RunRow, unanswered } from './run-bookkeeping';
import { ITEM_KINDS } from './run-items';

/**
 * Readings a round of stored answers may hold: a month of a meter's profile is 2,880 rows, and 500 such
 * answers at once were one push of a month of the whole demo fleet that held PGlite (and so every
 * login) for 15 s. A daily run's answers (97 rows) still go 500 at a time.
 */
const ANSWER_ROWS_PER_ROUND = 50_000;

/** A meter's clock, read with a run standing in for a task's (GapTarget.asTask): its clock check. */
export const CLOCK_ITEM = { obis: OBIS.clock, classId: 8, attribute: 2 };

/** A run's answers: the readings of each finished read, stored through the one readings pipeline, then its meter's counts and code. */
export class RunAnswers {
  constructor(
    private readonly db: Db,
    /** Answers go through the one readings pipeline, like pushed values: `push` resolves once they are stored. */
    private readonly ingest: Pick<ReadingIngest, 'push'>,
    private readonly bookkeeping: RunBookkeeping,
  ) {}

  /** Answers of finished reads not yet stored: their readings, then their devices' counts and result codes. */
  async store(run: RunRow): Promise<number> {
    const done = await this.db
      .select({ meterId: collectionRunDevice.meterId, command: deviceCommand })
      .from(collectionRunDevice)
      .innerJoin(
        deviceCommand,
        and(
          eq(deviceCommand.runId, collectionRunDevice.runId),
          eq(deviceCommand.meterId, collectionRunDevice.meterId),
          eq(deviceCommand.operation, COLLECT_CMD),
        ),
      )
      .where(and(unanswered(run.id), eq(deviceCommand.state, 'done')))
      .limit(answersPerRound(run));
    if (!done.length) return 0;
    // One push per answer: the ingest gathers them into flushes of its own size, whereas one push of the
    // round would be one transaction of up to ANSWER_ROWS_PER_ROUND rows that every other query waits for.
    await Promise.all(
      done.map(({ meterId, command }) => {
        const batch: AnswerBatch = { profile: [], daily: [], monthly: [], meterEvents: [], clockChecks: [] };
        addAnswer(batch, meterId, command);
        return this.ingest.push(batch);
      }),
    );
    await this.bookkeeping.recount(
      run,
      done.map((d) => d.meterId),
      new Map(done.map((d) => [d.meterId, d.command.resultCode ?? RESULT_CODES.serverTimeout])),
    );
    return done.length;
  }
}

/** Answers stored in one round: as many as keep its readings within ANSWER_ROWS_PER_ROUND. */
function answersPerRound(run: RunRow): number {
  const perMeter = run.devices > 0 ? run.expected / run.devices : 0;
  return Math.max(1, Math.min(DEVICES_PER_STATEMENT, Math.floor(ANSWER_ROWS_PER_ROUND / Math.max(1, perMeter))));
}

const ProfileAnswer = z.array(DeviceProfileRowSchema);
const EventAnswer = z.array(DeviceEventSchema);
type AnswerBatch = Required<Pick<ReadingBatch, 'profile' | 'daily' | 'monthly' | 'meterEvents' | 'clockChecks'>>;

/** The readings of a read's answer, item by item; an item that failed or does not parse adds nothing. */
function addAnswer(batch: AnswerBatch, meterId: string, command: CommandRow): void {
  const items = (command.answer as { items?: { obis: string; code?: string; value?: unknown }[] } | null)?.items ?? [];
  for (const item of items) {
    if (item.code && item.code !== RESULT_CODES.success) continue;
    if (item.obis === CLOCK_ITEM.obis) {
      const check = clockCheckOf(meterId, item.value, command);
      if (check) batch.clockChecks.push(check);
      continue;
    }
    const kind = ITEM_KINDS[item.obis];
    if (kind === 'events') {
      const events = EventAnswer.safeParse(item.value);
      if (events.success) batch.meterEvents.push(...meterEventRows(meterId, events.data));
      continue;
    }
    const rows = ProfileAnswer.safeParse(item.value);
    if (!rows.success) continue;
    if (kind === 'profile') batch.profile.push(...profileRows(meterId, rows.data));
    if (kind === 'daily') batch.daily.push(...dailyRows(meterId, rows.data));
    if (kind === 'monthly') batch.monthly.push(...monthlyRows(meterId, rows.data));
  }
}

/**
 * The clock check of a clock read: how far the device's time was from the head-end's when it answered,
 * taken midway between the command leaving and its answer arriving (the answer's trip is unknown).
 */
function clockCheckOf(meterId: string, value: unknown, command: CommandRow): ClockCheckRow | null {
  const device = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(device) || !command.answerTime) return null;
  const answered = command.answerTime.getTime();
  const at = command.sentAt ? (command.sentAt.getTime() + answered) / 2 : answered;
  return { meterId, ts: command.answerTime, deviationSeconds: Math.round((device - at) / 1000) };
}
