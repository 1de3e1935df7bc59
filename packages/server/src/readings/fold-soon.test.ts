import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { foldSoon, READING_ROLLUPS_JOB } from './rollups';

describe('foldSoon', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('queues one fold for every ask within its delay, and another for an ask after it', async () => {
    vi.useFakeTimers();
    const nudge = vi.fn(async (_name: string) => {});
    const log = { warn: vi.fn() } as unknown as FastifyBaseLogger;
    const ask = foldSoon({ nudge }, log, 5_000);

    ask();
    ask();
    vi.advanceTimersByTime(4_999);
    ask();
    expect(nudge).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(nudge.mock.calls).toEqual([[READING_ROLLUPS_JOB]]);

    ask();
    vi.advanceTimersByTime(5_000);
    expect(nudge).toHaveBeenCalledTimes(2);
  });

  it('says so when the fold cannot be queued', async () => {
    vi.useFakeTimers();
    const log = { warn: vi.fn() } as unknown as FastifyBaseLogger;
    const ask = foldSoon({ nudge: async () => Promise.reject(new Error('database away')) }, log, 10);
    ask();
    await vi.advanceTimersByTimeAsync(10);
    expect(log.warn).toHaveBeenCalledWith(expect.objectContaining({ err: expect.any(Error) }), 'fold not queued');
  });
});
