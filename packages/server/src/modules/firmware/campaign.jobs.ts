import type { CampaignProgress } from '@meterdesk/contracts';
import type { HeadEnd } from '../../headend/head-end';
import { defineJob } from '../../jobs/job-system';
import { untilDone } from '../../jobs/wait-for-wake';
import { FIRMWARE_CAMPAIGN_JOB } from './campaign.service';
import { type CampaignDriver, deviceRecord, type Look } from './campaign-driver';

function progressOf(look: Look, every: boolean): CampaignProgress | null {
  const c = look.campaign;
  if (!c) return null;
  return {
    campaignId: c.id,
    state: c.state as CampaignProgress['state'],
    pausedReason: (c.pausedReason as CampaignProgress['pausedReason']) ?? null,
    total: look.devices.length,
    done: look.devices.filter((d) => d.step === 'done').length,
    failed: look.devices.filter((d) => d.step === 'failed').length,
    devices: (every ? look.devices : look.changed).map((d) => deviceRecord(d, c.blocks)),
  };
}

/**
 * Drives a campaign (campaign-driver.ts) until it pauses or finishes, looking again whenever one of
 * its commands is answered, and tells the user who started this run each change on
 * `progress/{jobId}` (its first message carries every device). A run cut off by a stop, or left behind
 * by a server killed outright (`reclaimOnStart`), runs again at the next start and goes on from where
 * each device is; a resume is a new run.
 */
export const campaignJob = (driver: CampaignDriver, headEnd: HeadEnd) =>
  defineJob<{ campaignId: string }>({
    name: FIRMWARE_CAMPAIGN_JOB,
    concurrency: 4,
    retryLimit: 1000,
    retryDelaySeconds: 0,
    expireInSeconds: 23 * 3600,
    reclaimOnStart: true,
    handler: ({ campaignId }, context) => {
      let inFlight = new Set<string>();
      const resync = new Set<string>();
      let first = true;
      return untilDone(
        context.signal,
        (wake) =>
          headEnd.onDone((row) => {
            if (inFlight.has(row.id)) wake();
          }),
        async () => {
          const look = await driver.look(campaignId, { resync, first });
          inFlight = look.inFlight;
          const progress = progressOf(look, first);
          first = false;
          if (progress && (progress.devices.length || look.settled)) await context.progress(progress);
          return look.settled ? { done: { state: look.campaign?.state ?? 'gone', ...counts(progress) } } : 'wait';
        },
      );
    },
  });

const counts = (progress: CampaignProgress | null) =>
  progress ? { total: progress.total, done: progress.done, failed: progress.failed } : {};
