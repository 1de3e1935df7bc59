import type { FastifyBaseLogger } from 'fastify';
import { databaseError } from '../db/errors';
import type { ReadingBatch } from './rows';
import { READING_PARTS, type ReadingWriter } from './writer';

export interface IngestOptions {
  /** A flush starts once this many rows wait, and takes whole pushes until it holds at least this many. */
  flushRows: number;
  /** …or once the first waiting row has waited this long. */
  flushMs: number;
  /** Rows waiting or being written at most; a push beyond it waits for room (back-pressure). */
  maxPending: number;
  /** Flushes under way at once: the database merges one while the next is prepared and sent. */
  writers: number;
  /** How long a flush the database refuses for a passing reason (connection lost) is tried again. */
  retryForMs: number;
  /** One log line per rejection kind at most this often. */
  logEveryMs: number;
}

export const DEFAULT_INGEST_OPTIONS: IngestOptions = {
  flushRows: 5000,
  flushMs: 250,
  maxPending: 50_000,
  writers: 2,
  retryForMs: 60_000,
  logEveryMs: 60_000,
};

export const REJECT_REASONS = ['unknownMeter', 'impossibleTime', 'malformed'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface PushResult {
  /** Rows taken in and now stored (or found stored already). */
  accepted: number;
  /** Rows refused: malformed or at an impossible time. */
  rejected: number;
}

interface Entry {
  batch: ReadingBatch;
  rows: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** SQLSTATE classes of a row the database will never take (data, integrity): no use trying again. */
const PERMANENT = /^(22|23|42)/;

/** Whether a write failed for good (the database refuses the rows), not for a passing reason. */
export const refusedForGood = (error: unknown) => PERMANENT.test(databaseError(error)?.code ?? '');

/**
 * The one way readings reach the store: everything devices deliver, pushed on the broker or answered
 * to a task. `push` screens rows (malformed, impossible time: counted and dropped, the good rows of the
 * same batch kept), buffers them and resolves once they are durable. Buffered rows leave through
 * `ReadingWriter` in one write per flush, by size or after a short window, `writers` flushes at a
 * time: rows arriving while they run make the next one larger, so a busy database gets fewer, bigger
 * writes (each sorted by key, so two flushes meeting on the same keys lock them in the same order).
 * When more than `maxPending` rows wait, `push` waits too: memory stays bounded and the waiting
 * reaches the devices (the broker holds a delivery until its handler's push resolves).
 */
export class ReadingIngest {
  readonly counters = {
    stored: 0,
    duplicate: 0,
    rejected: { unknownMeter: 0, impossibleTime: 0, malformed: 0 } as Record<RejectReason, number>,
    /** Rows a flush could not write (the database refused them for good, or stayed away). */
    failed: 0,
  };
  private readonly options: IngestOptions;
  private queue: Entry[] = [];
  private queuedRows = 0;
  private writingRows = 0;
  private writing = 0;
  private readonly flushes = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private roomWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly logged = new Map<RejectReason, { at: number; since: number; example: unknown }>();

  constructor(
    private readonly writer: ReadingWriter,
    private readonly log: FastifyBaseLogger,
    options: Partial<IngestOptions> = {},
  ) {
    this.options = { ...DEFAULT_INGEST_OPTIONS, ...options };
  }

  /** Rows taken in and not yet durable. */
  get pending(): number {
    return this.queuedRows + this.writingRows;
  }

  async push(batch: ReadingBatch): Promise<PushResult> {
    if (this.stopped) throw new Error('readings ingest stopped');
    const screened = await this.writer.screen(batch);
    this.reject('malformed', screened.malformed, batch);
    this.reject('impossibleTime', screened.impossibleTime, batch);
    const result = { accepted: screened.rows, rejected: screened.malformed + screened.impossibleTime };
    if (!screened.rows) return result;
    // A batch larger than the cap still goes alone, once nothing else waits.
    while (this.pending > 0 && this.pending + screened.rows > this.options.maxPending)
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ batch: screened.batch, rows: screened.rows, resolve, reject });
      this.queuedRows += screened.rows;
      if (this.queuedRows >= this.options.flushRows) this.flushNow();
      else if (!this.timer && this.writing < this.options.writers)
        this.timer = setTimeout(() => this.flushNow(), this.options.flushMs);
    });
    return result;
  }

  /**
   * Resolves once fewer than `maxPending` rows wait: a producer that has yet to parse what it holds
   * waits here first, so parsing never races ahead of the database (and never starves its flushes).
   */
  async whenRoom(): Promise<void> {
    while (this.pending >= this.options.maxPending)
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve));
  }

  /**
   * Counts rows refused before they reached `push` (a device key no archive holds, a payload that
   * does not parse) and logs the kind at most once per `logEveryMs`, with how many since the last line.
   */
  reject(reason: RejectReason, count: number, example?: unknown): void {
    if (count <= 0) return;
    this.counters.rejected[reason] += count;
    const now = Date.now();
    const last = this.logged.get(reason);
    if (last && now - last.at < this.options.logEveryMs) {
      last.since += count;
      return;
    }
    const since = (last?.since ?? 0) + count;
    this.log.warn(
      { reason, count: since, total: this.counters.rejected[reason], example: brief(example) },
      'readings: rows refused',
    );
    this.logged.set(reason, { at: now, since: 0, example });
  }

  /** Writes what waits and takes nothing more: for shutdown, after the producers have stopped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.flushNow();
    while (this.flushes.size) await Promise.all([...this.flushes]);
  }

  private flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.writing < this.options.writers && this.queue.length) {
      const taken: Entry[] = [];
      let rows = 0;
      while (this.queue.length && rows < this.options.flushRows) {
        const entry = this.queue.shift() as Entry;
        taken.push(entry);
        rows += entry.rows;
      }
      this.queuedRows -= rows;
      this.writingRows += rows;
      this.writing++;
      const flush = this.flush(taken, rows).finally(() => {
        this.writing--;
        this.writingRows -= rows;
        this.flushes.delete(flush);
        for (const wake of this.roomWaiters.splice(0)) wake();
        // What arrived while this flush ran goes now: under load, flushes follow each other and grow.
        this.flushNow();
      });
      this.flushes.add(flush);
    }
  }

  private async flush(taken: readonly Entry[], rows: number): Promise<void> {
    try {
      const stored = await this.writeWithRetry(merge(taken));
      this.counters.stored += stored;
      this.counters.duplicate += rows - stored;
      for (const entry of taken) entry.resolve();
    } catch (error) {
      this.counters.failed += rows;
      this.log.error({ err: error, rows }, 'readings: a flush failed, its rows are lost');
      for (const entry of taken) entry.reject(error);
    }
  }

  private async writeWithRetry(batch: ReadingBatch): Promise<number> {
    const started = Date.now();
    for (let pause = 250; ; pause = Math.min(pause * 2, 5000)) {
      try {
        return await this.writer.writeScreened(batch);
      } catch (error) {
        if (refusedForGood(error) || Date.now() - started + pause > this.options.retryForMs) throw error;
        this.log.warn({ err: error, retryInMs: pause }, 'readings: flush failed, trying again');
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }
}

/** The batches of several pushes as one. */
function merge(entries: readonly Entry[]): ReadingBatch {
  if (entries.length === 1) return (entries[0] as Entry).batch;
  const out: Record<string, unknown[]> = {};
  for (const part of READING_PARTS) {
    const rows = entries.flatMap((e) => (e.batch[part] as unknown[] | undefined) ?? []);
    if (rows.length) out[part] = rows;
  }
  return out as ReadingBatch;
}

/** Enough of a refused payload for a log line to show what it was. */
function brief(example: unknown): unknown {
  if (example === undefined) return undefined;
  try {
    const text = typeof example === 'string' ? example : JSON.stringify(example);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(example);
  }
}
