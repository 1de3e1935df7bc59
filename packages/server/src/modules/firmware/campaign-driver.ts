import { createHash } from 'node:crypto';
import {
  type CampaignDevice,
  type CampaignState,
  type DeviceCommandItem,
  type DeviceKind,
  FIRMWARE_CMD,
  IMAGE_TRANSFER,
  OBIS,
  progressOfStep,
  RESULT_CODES,
  type UpgradeStep,
} from '@meterdesk/contracts';
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../db/driver';
import { iso } from '../../db/rows';
import { deviceCommand, firmwareBroadcast, firmwareCampaign, firmwareCampaignDevice } from '../../db/schema';
import type { StoredCommand } from '../../headend/commands';
import type { HeadEnd, NewCommand } from '../../headend/head-end';
import type { SettingsService } from '../system/settings.service';

type CampaignRow = typeof firmwareCampaign.$inferSelect;
export type DeviceRow = typeof firmwareCampaignDevice.$inferSelect;
type BroadcastRow = typeof firmwareBroadcast.$inferSelect;
interface CommandView {
  id: string;
  runId: string | null;
  state: string;
  resultCode: string | null;
  answer: unknown;
}

/** Block bytes one command carries at most (several blocks as items, at most 64 of them). */
const COMMAND_IMAGE_BYTES = 64 * 1024;
const MAX_ITEMS = 64;
/** Commands in a row a device may fail (offline past its wait, time-outs, refusals) before it is given up. */
const MAX_ERRORS = 5;
/** A broadcast the DCU keeps failing ends early: its meters are sent what they lack one by one. */
const MAX_BROADCAST_ERRORS = 3;
/** How long a campaign's command may wait for its device (offline, rebooting, queued behind others). */
const COMMAND_WAIT_SECONDS = 3600;
const PRIORITY = 4;

export const blocksPerCommand = (blockSize: number) =>
  Math.max(1, Math.min(MAX_ITEMS, Math.floor(COMMAND_IMAGE_BYTES / blockSize)));

const FINAL: readonly string[] = ['done', 'failed'];
/** Steps before a meter of a broadcast has the image initiated: its DCU's broadcast waits for them. */
const BEFORE_BROADCAST: readonly string[] = ['waiting', 'probe', 'initiate'];

/** A command's key in the ledger (`device_command.run_id`): a step is queued once however often it is decided. */
const commandKey = (...parts: (string | number | boolean)[]) =>
  createHash('md5').update(parts.join('\u0000')).digest('hex');

const item = (attribute: number, value?: unknown): DeviceCommandItem => ({
  obis: OBIS.imageTransfer,
  classId: IMAGE_TRANSFER.classId,
  attribute,
  ...(value === undefined ? {} : { value }),
});
const readVersion: StoredCommand = {
  op: 'get',
  items: [{ obis: OBIS.firmwareVersion, classId: 1, attribute: 2 }],
};

const firstValue = (answer: unknown): unknown =>
  (answer as { items?: { value?: unknown }[] } | null)?.items?.[0]?.value;

/** A device as the screens and the progress topic show it. */
export function deviceRecord(row: DeviceRow, blocks: number): CampaignDevice {
  const step = row.step as UpgradeStep;
  return {
    deviceKind: row.deviceKind as DeviceKind,
    deviceKey: row.deviceKey,
    canary: row.canary,
    step,
    progress: progressOfStep(step),
    nextBlock: Math.min(row.nextBlock, blocks),
    blocks,
    fromVersion: row.fromVersion,
    currentVersion: row.currentVersion,
    reason: row.reason as CampaignDevice['reason'],
    updateTime: iso(row.updateTime),
  };
}

/** What one look did: the campaign after it, its devices, those that changed, and the commands it waits for. */
export interface Look {
  campaign: CampaignRow | null;
  devices: DeviceRow[];
  changed: DeviceRow[];
  inFlight: Set<string>;
  /** Paused or finished: nothing more to do until a resume. */
  settled: boolean;
}

class Conflict extends Error {}

/**
 * Drives a campaign one look at a time: applies the answers of the commands that finished, decides
 * each device's next step and queues its command through the head-end, pauses the campaign when its
 * failures pass the threshold and finishes it when every device is done or failed.
 *
 * Everything it knows is in the tables: a device's step, its first missing block and the command in
 * flight. A look that decides a step queues its command (keyed by the device's command count, and
 * the activation by the device alone) and records it on the device in one transaction, on the
 * condition that the device still records the command before; so a restarted or doubled driver
 * neither loses a step nor queues one twice, and no device is ever told to activate twice. A device
 * activates only after it answered its verification with success.
 */
export class CampaignDriver {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly settings: SettingsService,
  ) {}

  /**
   * `resync` holds the devices (`kind:key`) that read where they are (attribute 4) before they are sent
   * more blocks: on the first look of a run (`first`), every device then mid-transfer, since the run
   * before may have stopped anywhere; each is read once its command in flight, if any, has finished.
   */
  async look(campaignId: string, { resync = new Set<string>(), first = false } = {}): Promise<Look> {
    const [campaign] = await this.db.select().from(firmwareCampaign).where(eq(firmwareCampaign.id, campaignId));
    const none: Look = { campaign: campaign ?? null, devices: [], changed: [], inFlight: new Set(), settled: true };
    if (campaign?.state !== 'running') return none;
    const devices = await this.db
      .select()
      .from(firmwareCampaignDevice)
      .where(eq(firmwareCampaignDevice.campaignId, campaignId))
      .orderBy(firmwareCampaignDevice.position);
    const broadcasts = await this.db
      .select()
      .from(firmwareBroadcast)
      .where(eq(firmwareBroadcast.campaignId, campaignId));
    const commands = await this.commands(
      [...devices, ...broadcasts].flatMap((r) => (r.commandId ? [r.commandId] : [])),
    );
    if (first) for (const d of devices) if (d.step === 'transfer') resync.add(`${d.deviceKind}:${d.deviceKey}`);
    const plan = new LookPlan(campaign, devices, broadcasts, commands);
    plan.applyAnswers(resync);
    const state = plan.settle();
    if (state === 'running') plan.decide();
    try {
      await this.write(plan, state);
    } catch (err) {
      if (err instanceof Conflict) return this.look(campaignId, { resync });
      throw err;
    }
    if (plan.queued.length) this.headEnd.kick();
    return this.looked(campaign, state, plan);
  }

  private looked(campaign: CampaignRow, state: CampaignState, plan: LookPlan): Look {
    const { devices } = plan;
    const after = { ...campaign, state, pausedReason: plan.pausedReason };
    return {
      campaign: after,
      devices: plan.drafts,
      changed: plan.drafts.filter((d, i) => plan.touched(devices[i] as DeviceRow, d)),
      inFlight: plan.inFlight(),
      settled: state !== 'running',
    };
  }

  private async commands(ids: string[]): Promise<Map<string, CommandView>> {
    if (!ids.length) return new Map();
    const rows = await this.db
      .select({
        id: deviceCommand.id,
        runId: deviceCommand.runId,
        state: deviceCommand.state,
        resultCode: deviceCommand.resultCode,
        answer: deviceCommand.answer,
      })
      .from(deviceCommand)
      .where(inArray(deviceCommand.id, ids));
    return new Map(rows.map((r) => [r.id, r]));
  }

  private async write(plan: LookPlan, state: CampaignState): Promise<void> {
    const unchanged =
      !plan.queued.length &&
      state === plan.campaign.state &&
      plan.pausedReason === plan.campaign.pausedReason &&
      plan.drafts.every((d, i) => !plan.touched(plan.devices[i] as DeviceRow, d)) &&
      [...plan.groups.values()].every((g) => g.stored && !g.dirty);
    if (unchanged) return;
    const timeout = await this.settings.commandTimeout();
    await this.db.transaction(async (tx) => {
      const ids = await this.queue(tx, plan, timeout);
      for (const [i, draft] of plan.drafts.entries()) {
        const before = plan.devices[i] as DeviceRow;
        if (!plan.touched(before, draft)) continue;
        const commandId = draft.commandKey ? (ids.get(draft.commandKey) ?? null) : draft.commandId;
        draft.commandId = commandId;
        const [updated] = await tx
          .update(firmwareCampaignDevice)
          .set({
            step: draft.step,
            nextBlock: draft.nextBlock,
            commandId,
            seq: draft.seq,
            errors: draft.errors,
            fromVersion: draft.fromVersion,
            currentVersion: draft.currentVersion,
            reason: draft.reason,
            updateTime: sql`now()`,
          })
          .where(
            and(
              eq(firmwareCampaignDevice.campaignId, before.campaignId),
              eq(firmwareCampaignDevice.deviceKind, before.deviceKind),
              eq(firmwareCampaignDevice.deviceKey, before.deviceKey),
              eq(firmwareCampaignDevice.seq, before.seq),
              before.commandId
                ? eq(firmwareCampaignDevice.commandId, before.commandId)
                : isNull(firmwareCampaignDevice.commandId),
            ),
          )
          .returning({ seq: firmwareCampaignDevice.seq });
        if (!updated) throw new Conflict();
        draft.updateTime = new Date();
      }
      for (const group of plan.groups.values()) {
        const commandId = group.commandKey ? (ids.get(group.commandKey) ?? null) : group.row.commandId;
        const values = { ...group.row, commandId, updateTime: new Date() };
        if (!group.stored) {
          await tx.insert(firmwareBroadcast).values(values);
        } else if (group.dirty) {
          const [updated] = await tx
            .update(firmwareBroadcast)
            .set(values)
            .where(
              and(
                eq(firmwareBroadcast.campaignId, group.row.campaignId),
                eq(firmwareBroadcast.dcuNo, group.row.dcuNo),
                eq(firmwareBroadcast.canary, group.row.canary),
                eq(firmwareBroadcast.seq, group.storedSeq),
              ),
            )
            .returning({ seq: firmwareBroadcast.seq });
          if (!updated) throw new Conflict();
        }
        group.row.commandId = commandId;
      }
      const campaign = plan.campaign;
      if (state !== campaign.state || plan.pausedReason !== campaign.pausedReason) {
        const [settled] = await tx
          .update(firmwareCampaign)
          .set({
            state,
            pausedReason: plan.pausedReason,
            updateTime: sql`now()`,
            ...(state === 'finished' ? { finishTime: sql`now()` } : {}),
          })
          .where(
            and(
              eq(firmwareCampaign.id, campaign.id),
              eq(firmwareCampaign.state, 'running'),
              // Devices added meanwhile (campaign.service add) keep it running.
              state === 'finished'
                ? sql`not exists (select 1 from ${firmwareCampaignDevice} where ${firmwareCampaignDevice.campaignId} = ${campaign.id} and ${firmwareCampaignDevice.step} not in ('done', 'failed'))`
                : undefined,
            ),
          )
          .returning({ id: firmwareCampaign.id });
        if (!settled) throw new Conflict();
      }
    });
  }

  /** Queues the look's commands and answers each one's ledger id by its key (queued now or before). */
  private async queue(tx: Executor, plan: LookPlan, timeout: number): Promise<Map<string, string>> {
    if (!plan.queued.length) return new Map();
    await this.headEnd.enqueue(
      tx,
      plan.queued.map(
        (q): NewCommand => ({
          planId: null,
          runId: q.key,
          deviceKind: q.kind,
          deviceKey: q.deviceKey,
          viaDcu: q.viaDcu,
          meterId: q.meterId,
          dcuId: q.dcuId,
          gridId: q.gridId,
          operation: FIRMWARE_CMD,
          command: q.command,
          priority: PRIORITY,
          bulk: true,
          timeoutSeconds: timeout,
          expiresInSeconds: COMMAND_WAIT_SECONDS,
          waitOnline: true,
          maxTimeoutRetries: 2,
          maxBusyRetries: 5,
          requestedBy: plan.campaign.createdBy,
          audited: q.audited,
        }),
      ),
    );
    const rows = await tx
      .select({ id: deviceCommand.id, runId: deviceCommand.runId })
      .from(deviceCommand)
      .where(
        inArray(
          deviceCommand.runId,
          plan.queued.map((q) => q.key),
        ),
      );
    return new Map(rows.map((r) => [r.runId as string, r.id]));
  }
}

interface Queued {
  key: string;
  kind: DeviceKind;
  deviceKey: string;
  viaDcu: string | null;
  meterId: string | null;
  dcuId: string | null;
  gridId: string;
  command: StoredCommand;
  audited: boolean;
}

type Draft = DeviceRow & { commandKey?: string };

interface Group {
  row: BroadcastRow;
  stored: boolean;
  storedSeq: number;
  dirty: boolean;
  commandKey?: string;
}

/** One look's decisions, in memory until `write` stores them in one transaction. */
class LookPlan {
  readonly drafts: Draft[];
  readonly groups = new Map<string, Group>();
  readonly queued: Queued[] = [];
  pausedReason: string | null;
  private readonly perCommand: number;

  constructor(
    readonly campaign: CampaignRow,
    readonly devices: DeviceRow[],
    broadcasts: BroadcastRow[],
    private readonly commands: Map<string, CommandView>,
  ) {
    this.drafts = devices.map((d) => ({ ...d }));
    for (const b of broadcasts)
      this.groups.set(groupKey(b.dcuNo, b.canary), { row: { ...b }, stored: true, storedSeq: b.seq, dirty: false });
    this.pausedReason = campaign.pausedReason;
    this.perCommand = blocksPerCommand(campaign.blockSize);
  }

  touched(before: DeviceRow, draft: Draft): boolean {
    return (
      draft.commandKey !== undefined ||
      before.step !== draft.step ||
      before.nextBlock !== draft.nextBlock ||
      before.commandId !== draft.commandId ||
      before.errors !== draft.errors ||
      before.currentVersion !== draft.currentVersion ||
      before.fromVersion !== draft.fromVersion ||
      before.reason !== draft.reason
    );
  }

  inFlight(): Set<string> {
    const ids = new Set<string>();
    for (const d of this.drafts) if (d.commandId) ids.add(d.commandId);
    for (const g of this.groups.values()) if (g.row.commandId) ids.add(g.row.commandId);
    return ids;
  }

  /** Each finished command moves its device (or broadcast) on; a device to resync then reads where it is. */
  applyAnswers(resync: Set<string>): void {
    for (const d of this.drafts) {
      const command = d.commandId ? this.commands.get(d.commandId) : undefined;
      if (d.commandId && command && command.state !== 'done') continue;
      d.commandId = null;
      if (command) this.answer(d, command);
      const key = `${d.deviceKind}:${d.deviceKey}`;
      if (!resync.has(key)) continue;
      resync.delete(key);
      if (d.step === 'transfer') d.step = 'resync';
    }
    this.answerBroadcasts();
  }

  private answer(d: Draft, command: CommandView): void {
    const { blocks, targetVersion } = this.campaign;
    {
      const code = command.resultCode;
      const ok = code === RESULT_CODES.success;
      const value = firstValue(command.answer);
      if (ok) d.errors = 0;
      switch (d.step as UpgradeStep) {
        case 'probe':
          if (!ok) this.error(d);
          else {
            d.fromVersion = String(value ?? '');
            d.currentVersion = d.fromVersion;
            d.step = d.fromVersion === targetVersion ? 'done' : 'initiate';
          }
          break;
        case 'initiate':
          if (!ok) this.error(d);
          else d.step = this.broadcastGroup(d) ? 'broadcast' : 'resync';
          break;
        case 'resync':
          if (!ok || typeof value !== 'number') this.error(d);
          else {
            d.nextBlock = value;
            d.step = value >= blocks ? 'verify' : 'transfer';
          }
          break;
        case 'transfer':
          if (ok) {
            d.nextBlock = Math.min(blocks, d.nextBlock + this.perCommand);
            d.step = d.nextBlock >= blocks ? 'verify' : 'transfer';
          } else {
            // What arrived is read back before more is sent.
            this.error(d, 'firmwareTransferFailed');
            if (d.step !== 'failed') d.step = 'resync';
          }
          break;
        case 'verify':
          if (ok) d.step = 'activate';
          else if (code === RESULT_CODES.failure) this.fail(d, 'firmwareVerifyFailed');
          else this.error(d);
          break;
        case 'activate':
          // Never asked twice: whether an unanswered activation happened, the version read back tells.
          if (code === RESULT_CODES.failure) this.fail(d, 'firmwareActivateFailed');
          else d.step = 'readback';
          break;
        case 'readback':
          if (!ok) this.error(d);
          else {
            d.currentVersion = String(value ?? '');
            if (d.currentVersion === targetVersion) d.step = 'done';
            else this.fail(d, 'firmwareVersionMismatch');
          }
          break;
        default:
          break;
      }
    }
  }

  private answerBroadcasts(): void {
    const { blocks } = this.campaign;
    for (const g of this.groups.values()) {
      const command = g.row.commandId ? this.commands.get(g.row.commandId) : undefined;
      if (command?.state !== 'done') continue;
      g.row.commandId = null;
      g.dirty = true;
      if (command.resultCode === RESULT_CODES.success) {
        g.row.errors = 0;
        g.row.nextBlock = Math.min(blocks, g.row.nextBlock + this.perCommand);
      } else if (++g.row.errors >= MAX_BROADCAST_ERRORS) g.row.state = 'done';
      if (g.row.nextBlock >= blocks) g.row.state = 'done';
    }
  }

  private error(d: Draft, reason: DeviceRow['reason'] = 'firmwareDeviceUnreachable'): void {
    d.errors++;
    if (d.errors >= MAX_ERRORS) this.fail(d, reason ?? 'firmwareDeviceUnreachable');
  }

  private fail(d: Draft, reason: string): void {
    d.step = 'failed';
    d.reason = reason;
  }

  /** The broadcast a meter of a broadcast campaign takes its blocks from; null when it is sent them alone. */
  private broadcastGroup(d: Draft): string | null {
    return this.campaign.method === 'broadcast' && d.deviceKind === 'meter' && d.viaDcu
      ? groupKey(d.viaDcu, d.canary)
      : null;
  }

  private canaryOpen(): boolean {
    return this.drafts.some((d) => d.canary && !FINAL.includes(d.step));
  }

  /**
   * The campaign's state after the answers: paused when its failures (since the last resume) pass the
   * threshold — of the canary wave while it runs, of every device after —, finished when every device is
   * done or failed.
   */
  settle(): CampaignState {
    const c = this.campaign;
    const fresh = this.drafts.filter((d) => d.step === 'failed').length - c.failuresAccepted;
    const canary = this.canaryOpen() || this.drafts.every((d) => d.canary || d.step === 'waiting');
    const wave = canary ? c.canaryCount : this.drafts.length;
    if (fresh > 0 && fresh * 100 > c.maxFailurePercent * wave) {
      this.pausedReason = canary ? 'canary' : 'threshold';
      return 'paused';
    }
    this.pausedReason = null;
    const busy = [...this.groups.values()].some((g) => g.row.commandId);
    return this.drafts.every((d) => FINAL.includes(d.step)) && !busy ? 'finished' : 'running';
  }

  /** The next command of every device (and broadcast) that has none in flight. */
  decide(): void {
    const mainWave = !this.canaryOpen();
    for (const d of this.drafts) {
      if (d.commandId || FINAL.includes(d.step)) continue;
      if (d.step === 'waiting') {
        if (!d.canary && !mainWave) continue;
        d.step = 'probe';
      }
      if (d.step === 'broadcast') {
        const group = this.groups.get(this.broadcastGroup(d) ?? '');
        if (group?.row.state !== 'done') continue;
        d.step = 'resync';
      }
      this.queueFor(d);
    }
    this.decideBroadcasts();
  }

  private queueFor(d: Draft): void {
    const c = this.campaign;
    let command: StoredCommand;
    let key: string;
    switch (d.step) {
      case 'probe':
      case 'readback':
        command = readVersion;
        break;
      case 'initiate':
        command = {
          op: 'action',
          items: [
            item(IMAGE_TRANSFER.methods.initiate, {
              identifier: c.targetVersion,
              size: c.imageSize,
              blockSize: c.blockSize,
              sha256: c.sha256,
            }),
          ],
        };
        break;
      case 'resync':
        command = { op: 'get', items: [item(IMAGE_TRANSFER.attributes.firstNotTransferredBlock)] };
        break;
      case 'transfer':
        command = this.blocks(d.nextBlock);
        break;
      case 'verify':
        command = { op: 'action', items: [item(IMAGE_TRANSFER.methods.verify)] };
        break;
      case 'activate':
        command = { op: 'action', items: [item(IMAGE_TRANSFER.methods.activate)] };
        break;
      default:
        return;
    }
    // An activation's key is the device's own in the campaign: whatever happens, it is queued once.
    if (d.step === 'activate') key = commandKey(c.id, d.deviceKind, d.deviceKey, 'activate');
    else key = commandKey(c.id, d.deviceKind, d.deviceKey, d.seq + 1);
    d.seq++;
    d.commandKey = key;
    this.queued.push({
      key,
      kind: d.deviceKind as DeviceKind,
      deviceKey: d.deviceKey,
      viaDcu: d.viaDcu,
      meterId: d.meterId,
      dcuId: d.dcuId,
      gridId: d.gridId,
      command,
      audited: d.step === 'activate',
    });
  }

  /** Blocks from `from` on, as many as one command carries; the bytes join them as the command leaves. */
  private blocks(from: number, broadcast?: string): StoredCommand {
    const c = this.campaign;
    const to = Math.min(c.blocks, from + this.perCommand);
    const items: DeviceCommandItem[] = [];
    for (let block = from; block < to; block++)
      items.push(item(IMAGE_TRANSFER.methods.transferBlock, broadcast ? { block, broadcast } : { block }));
    return { op: 'action', items, image: { imageId: c.imageId, blockSize: c.blockSize } };
  }

  /**
   * A DCU's broadcast starts once every meter of its wave behind it has initiated the image (or
   * failed), and sends the blocks one command after another.
   */
  private decideBroadcasts(): void {
    const c = this.campaign;
    const members = new Map<string, Draft[]>();
    for (const d of this.drafts) {
      const key = this.broadcastGroup(d);
      if (key) members.set(key, [...(members.get(key) ?? []), d]);
    }
    for (const [key, list] of members) {
      if (!list.some((d) => d.step === 'broadcast')) continue;
      let group = this.groups.get(key);
      if (!group) {
        if (list.some((d) => BEFORE_BROADCAST.includes(d.step))) continue;
        const first = list[0] as Draft;
        group = {
          row: {
            campaignId: c.id,
            dcuNo: first.viaDcu as string,
            canary: first.canary,
            dcuId: first.dcuId,
            gridId: first.gridId,
            state: 'sending',
            nextBlock: 0,
            commandId: null,
            seq: 0,
            errors: 0,
            updateTime: new Date(),
          },
          stored: false,
          storedSeq: 0,
          dirty: true,
        };
        this.groups.set(key, group);
      }
      const row = group.row;
      if (row.state !== 'sending' || row.commandId) continue;
      if (row.nextBlock >= c.blocks) {
        row.state = 'done';
        group.dirty = true;
        continue;
      }
      row.seq++;
      group.dirty = true;
      group.commandKey = commandKey(c.id, 'broadcast', row.dcuNo, row.canary, row.seq);
      this.queued.push({
        key: group.commandKey,
        kind: 'dcu',
        deviceKey: row.dcuNo,
        viaDcu: null,
        meterId: null,
        dcuId: row.dcuId,
        gridId: row.gridId,
        command: this.blocks(row.nextBlock, c.targetVersion),
        audited: false,
      });
    }
  }
}

const groupKey = (dcuNo: string, canary: boolean) => `${dcuNo}\u0000${canary}`;
