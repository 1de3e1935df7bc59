import { parseDeviceTopic } from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/driver';
import type { Broker } from '../mqtt/broker';

/** How long heartbeats gather before they are written together. */
export const HEARTBEAT_FLUSH_MS = 2000;

/**
 * Records each DCU's last heartbeat (`device_link.heartbeat_at`), for concentrator monitoring. A
 * fleet's DCUs beat every minute or so: they are gathered and written as one statement a few seconds
 * apart, the latest per DCU, never a write per message. Only a DCU already known to the head-end (its
 * status told) gets one; the heartbeat's time is the server's, as a device clock may be wrong.
 */
export class DcuHeartbeats {
  private waiting = new Map<string, Date>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private unsubscribe: (() => Promise<void>) | null = null;

  constructor(
    private readonly db: Db,
    private readonly broker: Broker,
    private readonly log: Pick<FastifyBaseLogger, 'error'>,
    private readonly flushMs = HEARTBEAT_FLUSH_MS,
  ) {}

  async start(): Promise<void> {
    if (this.unsubscribe) return;
    this.unsubscribe = await this.broker.subscribe('ami/dcu/+/heartbeat', (topic) => {
      const device = parseDeviceTopic(topic);
      if (device) this.beat(device.key, new Date());
    });
  }

  async stop(): Promise<void> {
    await this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flush();
  }

  beat(key: string, at: Date): void {
    this.waiting.set(key, at);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.flush();
    }, this.flushMs);
    this.timer.unref();
  }

  /** Writes what waits (after any write still running). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const beats = [...this.waiting].map(([key, at]) => ({ key, at: at.toISOString() }));
      this.waiting = new Map();
      if (!beats.length) return;
      try {
        await this.db.execute(
          sql`update device_link l set heartbeat_at = greatest(l.heartbeat_at, b.at)
            from json_to_recordset(${JSON.stringify(beats)}::json) as b(key varchar, at timestamptz)
            where l.device_kind = 'dcu' and l.device_key = b.key`,
        );
      } catch (err) {
        this.log.error({ err, beats: beats.length }, 'heartbeats not recorded');
      }
    });
    return this.flushing;
  }
}
