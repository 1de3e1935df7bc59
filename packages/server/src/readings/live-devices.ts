import {
  type DeviceKind,
  gridDevicesTopic,
  type LiveDeviceChange,
  type LiveDeviceChangeKind,
  type LiveDeviceMessage,
  MAX_LIVE_CHANGES,
} from '@meterdesk/contracts';
import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/driver';
import { rowsOf } from '../db/rows';
import type { Broker } from '../mqtt/broker';
import type { PowerChange } from './power-state';
import type { LinkChangeRow } from './rows';

/** A change as its source tells it: the device by its archive id. */
export interface DeviceChangeIn {
  kind: DeviceKind;
  id: string;
  change: LiveDeviceChangeKind;
  at: Date;
}

export interface LiveDeviceFeedOptions {
  /** How long changes gather before they are published together. */
  flushMs: number;
}

/**
 * What tells the feed about changes: the readings writer, once it has stored them, so a page that
 * reads again on the news finds them (the meter list's online column is `meter_live`, which the
 * writer brings up to date in the same transaction; the head-end's own link news comes before it).
 */
export interface ChangeSources {
  onLinkChange(listener: (changes: LinkChangeRow[]) => void): () => void;
  onPowerChange(listener: (changes: PowerChange[]) => void): () => void;
}

/**
 * Publishes devices' live changes (link online/offline, power down/up) to browsers, on the topic of
 * each grid node the device lies under (`live/grid/{gridId}/devices`: its own node and every one above).
 * The broker's subscribe check lets a browser follow only nodes within its grid scope, so a change
 * reaches exactly the users who may see the device, and the server's work per change is the depth
 * of the grid tree, whatever the number of users (the broker fans out). Changes gather for `flushMs`
 * and go out as one message per node: a transformer area going dark is a message per node above it,
 * not one per meter; past `MAX_LIVE_CHANGES` a message counts the rest (`omitted`).
 */
export class LiveDeviceFeed {
  private waiting: DeviceChangeIn[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly db: Db,
    private readonly broker: Broker,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    private readonly options: LiveDeviceFeedOptions = { flushMs: 250 },
  ) {}

  /** Listens to the sources; their listeners only queue, so following costs nothing until a change. */
  follow(sources: ChangeSources): void {
    this.stops.push(
      sources.onLinkChange((changes) => {
        for (const c of changes)
          this.announce({
            kind: c.deviceKind as DeviceKind,
            id: c.deviceId,
            change: c.online ? 'online' : 'offline',
            at: c.ts,
          });
      }),
      sources.onPowerChange((changes) => {
        for (const c of changes)
          this.announce({ kind: c.kind, id: c.id, change: c.dark ? 'powerDown' : 'powerUp', at: c.at });
      }),
    );
  }

  announce(change: DeviceChangeIn): void {
    this.waiting.push(change);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flushing = this.flushing.then(() => this.flush());
    }, this.options.flushMs);
    this.timer.unref();
  }

  /** Publishes what waits and stops listening. */
  async stop(): Promise<void> {
    for (const stop of this.stops.splice(0)) stop();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.flushing = this.flushing.then(() => this.flush());
    await this.flushing;
  }

  private async flush(): Promise<void> {
    const changes = this.waiting;
    this.waiting = [];
    if (!changes.length) return;
    try {
      const messages = await this.messages(changes);
      await Promise.all(messages.map((m) => this.broker.publish(gridDevicesTopic(m.gridId), m)));
    } catch (err) {
      // Live changes are a courtesy on top of what pages read: a lost batch is logged, never retried.
      this.log.warn({ err, changes: changes.length }, 'live device changes not published');
    }
  }

  /** The changes of devices the archive holds, one message per grid node they lie under. */
  private async messages(changes: DeviceChangeIn[]): Promise<LiveDeviceMessage[]> {
    const wanted = changes.map((c) => ({ kind: c.kind, id: c.id }));
    const devices = await rowsOf<{ kind: DeviceKind; id: string; key: string; grid_id: string }>(
      this.db,
      sql`with wanted as (select * from json_to_recordset(${JSON.stringify(wanted)}::json) as w(kind text, id text))
        select 'meter' as kind, id, dev_addr as key, grid_id from meter
          where id in (select id from wanted where kind = 'meter')
        union all
        select 'dcu', id, dcu_no, grid_id from dcu where id in (select id from wanted where kind = 'dcu')`,
    );
    if (!devices.length) return [];
    const found = new Map(devices.map((d) => [`${d.kind}:${d.id}`, d]));
    const edges = await rowsOf<{ id: string; parent_id: string }>(
      this.db,
      sql`with recursive up(id, parent_id) as (
          select id, parent_id from power_grid where id in (select jsonb_array_elements_text(${JSON.stringify([...new Set(devices.map((d) => d.grid_id))])}::jsonb))
          union select g.id, g.parent_id from power_grid g join up on g.id = up.parent_id)
        select id, parent_id from up`,
    );
    const parentOf = new Map(edges.map((e) => [e.id, e.parent_id]));
    const byNode = new Map<string, LiveDeviceChange[]>();
    for (const c of changes) {
      const device = found.get(`${c.kind}:${c.id}`);
      if (!device) continue;
      const change: LiveDeviceChange = {
        kind: device.kind,
        id: device.id,
        key: device.key,
        gridId: device.grid_id,
        change: c.change,
        at: c.at.toISOString(),
      };
      // The tree has no cycles (the grid page refuses one); the bound only keeps a damaged one from looping.
      for (let node = device.grid_id, depth = 0; parentOf.has(node) && depth < 64; depth++) {
        const list = byNode.get(node);
        if (list) list.push(change);
        else byNode.set(node, [change]);
        node = parentOf.get(node) as string;
      }
    }
    return [...byNode].map(([gridId, list]) => ({
      gridId,
      changes: list.slice(0, MAX_LIVE_CHANGES),
      omitted: Math.max(0, list.length - MAX_LIVE_CHANGES),
    }));
  }
}
