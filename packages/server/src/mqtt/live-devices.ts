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
import type { LinkChange } from '../headend/head-end';
import type { PowerChange } from '../readings/power-state';
import type { Broker } from './broker';

/** A change as its source knows the device: the head-end by key, the readings writer by archive id. */
export interface DeviceChangeIn {
  kind: DeviceKind;
  id?: string;
  key?: string;
  change: LiveDeviceChangeKind;
  at: Date;
}

export interface LiveDeviceFeedOptions {
  /** How long changes gather before they are published together. */
  flushMs: number;
}

/** What tells the feed about changes: the head-end's link changes and the writer's supply changes. */
export interface ChangeSources {
  onLinkChange(listener: (change: LinkChange) => void): () => void;
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
      sources.onLinkChange((c) =>
        this.announce({ kind: c.kind, key: c.key, change: c.online ? 'online' : 'offline', at: c.at }),
      ),
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
    const wanted = changes.map((c) => ({ kind: c.kind, id: c.id ?? null, key: c.key?.toLowerCase() ?? null }));
    const devices = await rowsOf<{ kind: DeviceKind; id: string; key: string; grid_id: string; by_key: string | null }>(
      this.db,
      sql`with wanted as (select * from json_to_recordset(${JSON.stringify(wanted)}::json) as w(kind text, id text, key text))
        select 'meter' as kind, id, dev_addr as key, grid_id, null as by_key from meter
          where id in (select id from wanted where kind = 'meter')
        union all
        select 'meter', id, dev_addr, grid_id, lower(dev_addr) from meter
          where lower(dev_addr) in (select key from wanted where kind = 'meter')
        union all
        select 'dcu', id, dcu_no, grid_id, null from dcu where id in (select id from wanted where kind = 'dcu')
        union all
        select 'dcu', id, dcu_no, grid_id, lower(dcu_no) from dcu where lower(dcu_no) in (select key from wanted where kind = 'dcu')`,
    );
    if (!devices.length) return [];
    const found = new Map<string, (typeof devices)[number]>();
    for (const d of devices) found.set(d.by_key !== null ? `${d.kind}:key:${d.by_key}` : `${d.kind}:id:${d.id}`, d);
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
      const device = found.get(c.key ? `${c.kind}:key:${c.key.toLowerCase()}` : `${c.kind}:id:${c.id}`);
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
