import {
  type AssociatedDevice,
  type Campaign,
  type CampaignStartSchema,
  type CampaignSummary,
  type DeviceKind,
  equipmentTarget,
  type FirmwareEquipment,
  type Page,
  progressOfStep,
  RESULT,
  type UpgradeMethod,
  type UpgradeStep,
} from '@meterdesk/contracts';
import { and, desc, eq, inArray, ne, notInArray, or, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { Db } from '../../db/driver';
import { newId } from '../../db/ids';
import { countAll, iso, likeContains, rowsOf } from '../../db/rows';
import { dcu, firmware, firmwareCampaign, firmwareCampaignDevice, firmwareImage, meter } from '../../db/schema';
import { ApiError, fieldError, notFound } from '../../errors/api-error';
import type { HeadEnd } from '../../headend/head-end';
import type { SessionContext } from '../../http/operation';
import type { JobSystem } from '../../jobs/job-system';
import { gridScope, type Scope, scopeOf } from '../../rbac/scope';
import { deviceRecord } from './campaign-driver';

export const FIRMWARE_CAMPAIGN_JOB = 'firmware-campaign';

type CampaignRow = typeof firmwareCampaign.$inferSelect;

interface Target {
  kind: DeviceKind;
  key: string;
  meterId: string | null;
  dcuId: string | null;
  viaDcu: string | null;
  gridId: string;
}

const FINAL = ['done', 'failed'];

/**
 * Firmware campaigns: started on devices of the caller's grid scope (at most 30 a selection, all
 * online, none in another unfinished campaign), driven by the `firmware-campaign` job (campaign-driver.ts),
 * resumed when they paused, and read back with each device's step and versions.
 */
export class CampaignService {
  constructor(
    private readonly db: Db,
    private readonly headEnd: HeadEnd,
    private readonly jobs: JobSystem,
  ) {}

  async start(request: z.output<typeof CampaignStartSchema>, session: SessionContext) {
    const [fw] = await this.db
      .select({ f: firmware, size: firmwareImage.size, sha256: firmwareImage.sha256 })
      .from(firmware)
      .innerJoin(firmwareImage, eq(firmwareImage.id, firmware.imageId))
      .where(eq(firmware.id, request.firmwareId));
    if (!fw) throw fieldError(RESULT.notFound, 'firmwareId', 'notFound');
    const devices = await this.selection(fw.f.equipment, request.devices, session);
    const id = newId();
    const canaryCount = Math.max(1, Math.ceil((devices.length * request.canaryPercent) / 100));
    await this.db.transaction(async (tx) => {
      await tx.insert(firmwareCampaign).values({
        id,
        firmwareId: fw.f.id,
        imageId: fw.f.imageId,
        targetVersion: fw.f.targetVersion,
        method: fw.f.upgradeMethod,
        blockSize: fw.f.splitSize,
        blocks: Math.ceil(fw.size / fw.f.splitSize),
        imageSize: fw.size,
        sha256: fw.sha256,
        state: 'running',
        canaryCount,
        maxFailurePercent: request.maxFailurePercent,
        createdBy: session.username,
      });
      await tx.insert(firmwareCampaignDevice).values(
        devices.map((d, position) => ({
          campaignId: id,
          deviceKind: d.kind,
          deviceKey: d.key,
          position,
          canary: position < canaryCount,
          meterId: d.meterId,
          dcuId: d.dcuId,
          viaDcu: d.viaDcu,
          gridId: d.gridId,
        })),
      );
    });
    return { campaignId: id, jobId: await this.drive(id, session.username) };
  }

  /**
   * More devices for a campaign that has not finished (a selection at a time, checked as on start).
   * They join after the canary wave; the row lock keeps the campaign from finishing meanwhile.
   */
  async add(body: { campaignId: string; devices: string[] }, session: SessionContext) {
    const row = await this.visible(body.campaignId, session);
    const [fw] = await this.db
      .select({ equipment: firmware.equipment })
      .from(firmware)
      .where(eq(firmware.id, row.firmwareId));
    const devices = await this.selection(fw?.equipment ?? '', body.devices, session);
    const total = await this.db.transaction(async (tx) => {
      const [open] = await tx
        .update(firmwareCampaign)
        .set({ updateTime: sql`now()` })
        .where(and(eq(firmwareCampaign.id, row.id), ne(firmwareCampaign.state, 'finished')))
        .returning({ id: firmwareCampaign.id });
      if (!open) throw new ApiError(RESULT.badRequest, 'campaignFinished');
      const [last] = await tx
        .select({ n: sql<number>`coalesce(max(${firmwareCampaignDevice.position}) + 1, 0)`.mapWith(Number) })
        .from(firmwareCampaignDevice)
        .where(eq(firmwareCampaignDevice.campaignId, row.id));
      const from = last?.n ?? 0;
      await tx.insert(firmwareCampaignDevice).values(
        devices.map((d, i) => ({
          campaignId: row.id,
          deviceKind: d.kind,
          deviceKey: d.key,
          position: from + i,
          canary: false,
          meterId: d.meterId,
          dcuId: d.dcuId,
          viaDcu: d.viaDcu,
          gridId: d.gridId,
        })),
      );
      return from + devices.length;
    });
    return { campaignId: row.id, total };
  }

  /** A selection's devices: of the firmware's equipment, in the caller's scope, online and upgrading nowhere else. */
  private async selection(equipment: string, keys: string[], session: SessionContext): Promise<Target[]> {
    const kind = equipmentTarget(equipment as FirmwareEquipment);
    const devices = await this.resolve(await scopeOf(this.db, session), kind, keys);
    const online = await this.headEnd.onlineStates(devices);
    const offline = devices.filter((d) => !online.get(`${d.kind}:${d.key}`)).map((d) => d.key);
    if (offline.length) throw new ApiError(RESULT.badRequest, 'MThasOffline', { devices: offline });
    const busy = await this.upgrading(devices);
    if (busy.length)
      throw new ApiError(RESULT.badRequest, devices.length > 1 ? 'MThasExecute' : 'MTisExecute', { devices: busy });
    return devices;
  }

  /** A paused campaign runs again; the failures so far are accepted, so the threshold counts anew. */
  async resume(campaignId: string, session: SessionContext) {
    await this.visible(campaignId, session);
    const failed = sql<number>`(select count(*) from ${firmwareCampaignDevice} d where d.campaign_id = ${campaignId} and d.step = 'failed')`;
    const [resumed] = await this.db
      .update(firmwareCampaign)
      .set({ state: 'running', pausedReason: null, failuresAccepted: failed, updateTime: sql`now()` })
      .where(and(eq(firmwareCampaign.id, campaignId), eq(firmwareCampaign.state, 'paused')))
      .returning({ id: firmwareCampaign.id });
    if (!resumed) throw new ApiError(RESULT.badRequest, 'campaignNotPaused');
    return { campaignId, jobId: await this.drive(campaignId, session.username) };
  }

  /** The job that drives the campaign and reports it on `progress/{jobId}` to whoever started it. */
  private async drive(campaignId: string, startedBy: string): Promise<string> {
    const jobId = await this.jobs.send(FIRMWARE_CAMPAIGN_JOB, { campaignId }, { startedBy });
    await this.db.update(firmwareCampaign).set({ jobId }).where(eq(firmwareCampaign.id, campaignId));
    return jobId;
  }

  async detail(campaignId: string, session: SessionContext): Promise<Campaign> {
    const row = await this.visible(campaignId, session);
    const devices = await this.db
      .select()
      .from(firmwareCampaignDevice)
      .where(eq(firmwareCampaignDevice.campaignId, campaignId))
      .orderBy(firmwareCampaignDevice.position);
    return {
      ...(await this.summaries([row]))[0]!,
      devices: devices.map((d) => deviceRecord(d, row.blocks)),
    };
  }

  async list(
    query: { firmwareId: string; pageSize: number; curPage: number },
    session: SessionContext,
  ): Promise<Page<CampaignSummary>> {
    const where = and(
      eq(firmwareCampaign.firmwareId, query.firmwareId),
      this.allInScope(await scopeOf(this.db, session)),
    );
    const [rows, [count]] = await Promise.all([
      this.db
        .select()
        .from(firmwareCampaign)
        .where(where)
        .orderBy(desc(firmwareCampaign.createTime), firmwareCampaign.id)
        .limit(query.pageSize)
        .offset((query.curPage - 1) * query.pageSize),
      this.db.select({ n: countAll() }).from(firmwareCampaign).where(where),
    ]);
    return { list: await this.summaries(rows), total: count?.n ?? 0, curPage: query.curPage, pageSize: query.pageSize };
  }

  /** Each device the firmware's campaigns took, by its latest campaign, within the caller's grid scope. */
  async associated(
    query: { firmwareId: string; deviceKey: string; pageSize: number; curPage: number },
    session: SessionContext,
  ): Promise<Page<AssociatedDevice>> {
    const scope = await scopeOf(this.db, session);
    const conditions: SQL[] = [sql`c.firmware_id = ${query.firmwareId}`];
    const inScope = gridScope(scope, sql`d.grid_id`);
    if (inScope) conditions.push(inScope);
    if (query.deviceKey) conditions.push(sql`d.device_key ilike ${likeContains(query.deviceKey)}`);
    const latest = sql`select distinct on (d.device_kind, d.device_key)
        d.campaign_id, d.device_kind, d.device_key, d.step, d.current_version, d.from_version, d.reason,
        d.update_time, c.target_version
      from ${firmwareCampaignDevice} d join ${firmwareCampaign} c on c.id = d.campaign_id
      where ${sql.join(conditions, sql` and `)}
      order by d.device_kind, d.device_key, c.create_time desc`;
    const [list, [count]] = await Promise.all([
      rowsOf<Record<string, unknown>>(
        this.db,
        sql`select * from (${latest}) l order by l.device_key limit ${query.pageSize} offset ${(query.curPage - 1) * query.pageSize}`,
      ),
      rowsOf<{ n: number }>(this.db, sql`select count(*)::int as n from (${latest}) l`),
    ]);
    return {
      list: list.map((r) => {
        const step = r.step as UpgradeStep;
        return {
          campaignId: String(r.campaign_id),
          deviceKind: r.device_kind as DeviceKind,
          deviceKey: String(r.device_key),
          step,
          progress: progressOfStep(step),
          currentVersion: String(r.current_version || r.from_version || ''),
          targetVersion: String(r.target_version),
          reason: (r.reason as AssociatedDevice['reason']) ?? null,
          updateTime: new Date(r.update_time as string).toISOString(),
        };
      }),
      total: Number(count?.n ?? 0),
      curPage: query.curPage,
      pageSize: query.pageSize,
    };
  }

  private async summaries(rows: CampaignRow[]): Promise<CampaignSummary[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const [names, counts] = await Promise.all([
      this.db
        .select({ id: firmware.id, name: firmware.name })
        .from(firmware)
        .where(
          inArray(
            firmware.id,
            rows.map((r) => r.firmwareId),
          ),
        ),
      this.db
        .select({
          id: firmwareCampaignDevice.campaignId,
          total: countAll(),
          done: sql<number>`count(*) filter (where ${firmwareCampaignDevice.step} = 'done')`.mapWith(Number),
          failed: sql<number>`count(*) filter (where ${firmwareCampaignDevice.step} = 'failed')`.mapWith(Number),
        })
        .from(firmwareCampaignDevice)
        .where(inArray(firmwareCampaignDevice.campaignId, ids))
        .groupBy(firmwareCampaignDevice.campaignId),
    ]);
    const nameOf = new Map(names.map((n) => [n.id, n.name]));
    const countOf = new Map(counts.map((c) => [c.id, c]));
    return rows.map((r) => ({
      campaignId: r.id,
      firmwareId: r.firmwareId,
      firmwareName: nameOf.get(r.firmwareId) ?? '',
      targetVersion: r.targetVersion,
      method: r.method as UpgradeMethod,
      state: r.state as CampaignSummary['state'],
      pausedReason: (r.pausedReason as CampaignSummary['pausedReason']) ?? null,
      canaryCount: r.canaryCount,
      maxFailurePercent: r.maxFailurePercent,
      jobId: r.jobId,
      createdBy: r.createdBy,
      createTime: iso(r.createTime),
      finishTime: r.finishTime ? iso(r.finishTime) : null,
      total: countOf.get(r.id)?.total ?? 0,
      done: countOf.get(r.id)?.done ?? 0,
      failed: countOf.get(r.id)?.failed ?? 0,
    }));
  }

  /** A campaign the caller sees: every one of its devices lies in their grid scope (404 otherwise). */
  private async visible(campaignId: string, session: SessionContext): Promise<CampaignRow> {
    const [row] = await this.db
      .select()
      .from(firmwareCampaign)
      .where(and(eq(firmwareCampaign.id, campaignId), this.allInScope(await scopeOf(this.db, session))));
    if (!row) throw notFound();
    return row;
  }

  private allInScope(scope: Scope): SQL | undefined {
    const inScope = gridScope(scope, firmwareCampaignDevice.gridId);
    if (!inScope) return undefined;
    return sql`not exists (select 1 from ${firmwareCampaignDevice} where ${firmwareCampaignDevice.campaignId} = ${firmwareCampaign.id} and not (${inScope}))`;
  }

  /** The devices named, of the firmware's kind, within the caller's grid scope; any other is refused naming them. */
  private async resolve(scope: Scope, kind: DeviceKind, keys: readonly string[]): Promise<Target[]> {
    const unique = [...new Set(keys.map((k) => k.trim()))];
    const lowered = unique.map((k) => k.toLowerCase());
    const match = (column: typeof meter.devAddr | typeof dcu.dcuNo) => inArray(sql`lower(${column})`, lowered);
    const none = sql<string | null>`null`;
    const rows =
      kind === 'meter'
        ? await this.db
            .select({
              key: meter.devAddr,
              meterId: meter.id,
              dcuId: meter.dcuId,
              viaDcu: dcu.dcuNo,
              gridId: meter.gridId,
            })
            .from(meter)
            .leftJoin(dcu, eq(dcu.id, meter.dcuId))
            .where(and(match(meter.devAddr), gridScope(scope, meter.gridId)))
        : await this.db
            .select({ key: dcu.dcuNo, meterId: none, dcuId: dcu.id, viaDcu: none, gridId: dcu.gridId })
            .from(dcu)
            .where(and(match(dcu.dcuNo), gridScope(scope, dcu.gridId)));
    const found: Target[] = rows.map((r) => ({ kind, ...r }));
    const byKey = new Map(found.map((d) => [d.key.toLowerCase(), d]));
    const missing = unique.filter((k) => !byKey.has(k.toLowerCase()));
    if (missing.length) {
      const other = await this.ofOtherKind(scope, kind, missing);
      if (other.length) throw new ApiError(RESULT.badRequest, 'firmwareEquipmentMismatch', { devices: other });
      throw new ApiError(RESULT.badRequest, 'deviceNotFound', { devices: missing });
    }
    return unique.map((k) => byKey.get(k.toLowerCase()) as Target);
  }

  private async ofOtherKind(scope: Scope, kind: DeviceKind, keys: string[]): Promise<string[]> {
    const lowered = keys.map((k) => k.toLowerCase());
    const rows =
      kind === 'meter'
        ? await this.db
            .select({ key: dcu.dcuNo })
            .from(dcu)
            .where(and(inArray(sql`lower(${dcu.dcuNo})`, lowered), gridScope(scope, dcu.gridId)))
        : await this.db
            .select({ key: meter.devAddr })
            .from(meter)
            .where(and(inArray(sql`lower(${meter.devAddr})`, lowered), gridScope(scope, meter.gridId)));
    return rows.map((r) => r.key);
  }

  /** Devices still upgrading in a campaign that has not finished: they take no second image meanwhile. */
  private async upgrading(devices: readonly Target[]): Promise<string[]> {
    if (!devices.length) return [];
    const rows = await this.db
      .selectDistinct({ key: firmwareCampaignDevice.deviceKey })
      .from(firmwareCampaignDevice)
      .innerJoin(firmwareCampaign, eq(firmwareCampaign.id, firmwareCampaignDevice.campaignId))
      .where(
        and(
          ne(firmwareCampaign.state, 'finished'),
          notInArray(firmwareCampaignDevice.step, FINAL),
          eq(firmwareCampaignDevice.deviceKind, devices[0]!.kind),
          or(...devices.map((d) => eq(firmwareCampaignDevice.deviceKey, d.key))),
        ),
      );
    return rows.map((r) => r.key);
  }
}
