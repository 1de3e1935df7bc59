import type { Scheduler } from './scheduler';

const SETTLE_MS = 300;
const SETTLE_MAX_MS = 10_000;

/*
 * Aedes (its in-memory store) answers each new subscription by scanning every retained message.
 * When a hundred DCUs (re)connect together, each subscribing to its hundred meters, retained meter
 * statuses published in between would make that quadratic: 10,000 meters took minutes to start.
 * So the meters' statuses wait until the connections have settled, and go out together.
 */
export class StatusWave<T> {
  private readonly waiting = new Set<T>();
  private started = 0;
  private lastJoined = 0;
  private armed = false;

  /** `release` gets every member that joined the wave, once the connections have settled. */
  constructor(
    private readonly scheduler: Scheduler,
    private readonly release: (members: Iterable<T>) => void,
  ) {}

  join(member: T): void {
    const now = Date.now();
    this.waiting.add(member);
    this.lastJoined = now;
    if (this.armed) return;
    this.armed = true;
    this.started = now;
    this.scheduler.after(SETTLE_MS, () => this.releaseWhenSettled());
  }

  private releaseWhenSettled(): void {
    const due = Math.min(this.lastJoined + SETTLE_MS, this.started + SETTLE_MAX_MS);
    if (Date.now() < due) {
      this.scheduler.at(due, () => this.releaseWhenSettled());
      return;
    }
    this.armed = false;
    this.release(this.waiting);
    this.waiting.clear();
  }
}
