/**
 * What the firmware benchmarks share: an image stored as the upload stores it, a firmware saved through
 * the API, a campaign started on a fleet's meters a selection of 30 at a time, and its devices read
 * from the database.
 */
import { createHash, randomBytes } from 'node:crypto';
import { MAX_BATCH_DEVICES } from '@meterdesk/contracts';
import type { apiClient, FleetDatabase } from './fleet-server';

type Api = ReturnType<typeof apiClient>;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An image of `bytes` (binary: a NUL first), kept as `/firmware/upload` keeps one; answers its id. */
export async function storeImage(db: FleetDatabase, bytes: number): Promise<string> {
  const content = randomBytes(bytes);
  content[0] = 0;
  const id = randomBytes(16).toString('hex');
  await db.sql.query(
    'insert into firmware_image (id, sha256, size, content, file_name, uploaded_by) values ($1, $2, $3, $4, $5, $6)',
    [id, createHash('sha256').update(content).digest('hex'), bytes, content, 'bench.bin', 'admin'],
  );
  return id;
}

/** Calls until the server answers (a benchmark may be restarting it); a refusal throws. */
export async function call<T>(api: Api, path: string, body: unknown, waitFor?: () => Promise<void>): Promise<T> {
  for (;;) {
    if (waitFor) await waitFor();
    const answer = await api.post(path, body).catch(() => null);
    if (answer?.body?.code === 200) return answer.body.data as T;
    if (answer?.status === 401) {
      await api.login().catch(() => {});
      continue;
    }
    if (answer && answer.status < 500) throw new Error(`${path}: ${JSON.stringify(answer.body)}`);
    await pause(200);
  }
}

export async function saveFirmware(
  api: Api,
  imageId: string,
  over: { name: string; targetVersion: string; splitSize: number; upgradeMethod: 'p2p' | 'broadcast' },
): Promise<string> {
  const { id } = await call<{ id: string }>(api, '/firmware/save', {
    equipment: 'carrierChip',
    imageId,
    ...over,
  });
  return id;
}

/** A campaign on `devices`: started with the first 30, the rest added 30 at a time (spec §5's selection). */
export async function startCampaign(
  api: Api,
  firmwareId: string,
  devices: readonly string[],
  options: { canaryPercent: number; maxFailurePercent: number },
  waitFor?: () => Promise<void>,
): Promise<string> {
  const { campaignId } = await call<{ campaignId: string }>(
    api,
    '/firmware/campaign/start',
    { firmwareId, devices: devices.slice(0, MAX_BATCH_DEVICES), ...options },
    waitFor,
  );
  for (let from = MAX_BATCH_DEVICES; from < devices.length; from += MAX_BATCH_DEVICES)
    await call(
      api,
      '/firmware/campaign/add',
      { campaignId, devices: devices.slice(from, from + MAX_BATCH_DEVICES) },
      waitFor,
    );
  return campaignId;
}

export interface CampaignRow {
  state: string;
  steps: Record<string, number>;
}

export async function campaignState(db: FleetDatabase, campaignId: string): Promise<CampaignRow> {
  const [campaign] = (await db.sql.query('select state from firmware_campaign where id = $1', [campaignId])).rows;
  const steps = (
    await db.sql.query(
      'select step, count(*)::int as n from firmware_campaign_device where campaign_id = $1 group by step',
      [campaignId],
    )
  ).rows as { step: string; n: number }[];
  return { state: campaign?.state ?? 'gone', steps: Object.fromEntries(steps.map((s) => [s.step, s.n])) };
}

/** Waits until the campaign has finished, resuming it (once per pause) when it paused. */
export async function untilFinished(
  api: Api,
  db: FleetDatabase,
  campaignId: string,
  timeoutMs: number,
  waitFor?: () => Promise<void>,
): Promise<CampaignRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await campaignState(db, campaignId);
    if (row.state === 'finished') return row;
    if (row.state === 'paused') await call(api, '/firmware/campaign/resume', { campaignId }, waitFor);
    if (Date.now() > deadline) throw new Error(`campaign not finished: ${JSON.stringify(row)}`);
    await pause(250);
  }
}

export const stepSummary = (steps: Record<string, number>) =>
  Object.entries(steps)
    .map(([step, n]) => `${step} ${n}`)
    .join(', ');
