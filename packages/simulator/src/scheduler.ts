/*
 * One timer for the whole fleet: a binary heap of due times. Ten thousand meters with a timer each
 * would cost the event loop more than the work they schedule.
 */

interface Job {
  at: number;
  seq: number;
  run: () => void;
}

/** Jobs run per turn of the event loop before yielding, so a burst never blocks I/O for long. */
const BATCH = 2000;

export class Scheduler {
  private readonly heap: Job[] = [];
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private seq = 0;
  private stopped = false;
  private draining = false;

  /** `afterBatch` runs once after each batch of due jobs (the publishes they made go out together). */
  constructor(private readonly afterBatch: () => void = () => {}) {}

  get size() {
    return this.heap.length;
  }

  at(time: number, run: () => void): void {
    if (this.stopped) return;
    this.push({ at: time, seq: this.seq++, run });
    if (!this.draining && time < this.timerAt) this.arm();
  }

  after(ms: number, run: () => void): void {
    this.at(Date.now() + Math.max(0, ms), run);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.heap.length = 0;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    const first = this.heap[0];
    if (!first || this.stopped) return;
    this.timerAt = first.at;
    this.timer = setTimeout(() => this.drain(), Math.max(0, first.at - Date.now()));
  }

  private drain(): void {
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
    this.draining = true;
    let ran = 0;
    const now = Date.now();
    try {
      while (ran < BATCH && !this.stopped) {
        const first = this.heap[0];
        if (!first || first.at > now) break;
        this.pop();
        ran++;
        first.run();
      }
    } finally {
      this.draining = false;
      this.afterBatch();
    }
    if (this.stopped) return;
    const first = this.heap[0];
    if (ran === BATCH && first && first.at <= Date.now()) {
      this.timerAt = first.at;
      this.timer = setTimeout(() => this.drain(), 0);
    } else this.arm();
  }

  private push(job: Job): void {
    const heap = this.heap;
    heap.push(job);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(job, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = job;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}

const before = (a: Job, b: Job) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
