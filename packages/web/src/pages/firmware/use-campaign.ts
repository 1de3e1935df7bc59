import {
  type Campaign,
  type CampaignDevice,
  type CampaignProgress,
  CampaignProgressSchema,
  firmwareApi,
  progressTopic,
} from '@meterdesk/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { callApi } from '@/api/api-client';
import { followTopic } from '@/app/live/broker-topics';

/** How often a running campaign is read while the broker pushes nothing, and (as a safety net) while it does. */
const POLL_MS = 2_000;
const LIVE_POLL_MS = 15_000;

export const campaignKey = (campaignId: string) => ['firmware', 'campaign', campaignId];

/** A progress message applied to the campaign read before: its state and counts, and the devices it carries. */
export function applyProgress(campaign: Campaign, progress: CampaignProgress): Campaign {
  const changed = new Map(progress.devices.map((d) => [`${d.deviceKind}:${d.deviceKey}`, d]));
  const devices: CampaignDevice[] = campaign.devices.map((d) => changed.get(`${d.deviceKind}:${d.deviceKey}`) ?? d);
  return {
    ...campaign,
    state: progress.state,
    pausedReason: progress.pausedReason,
    total: progress.total,
    done: progress.done,
    failed: progress.failed,
    devices,
  };
}

/**
 * One campaign as it goes: read through `/firmware/campaign/detail`, each change pushed on
 * `progress/{jobId}` applied at once (the user who started or resumed it hears them), and read again
 * every few seconds while it runs and the broker pushes nothing, so a lost message only slows the view.
 */
export function useCampaign(campaignId: string | undefined) {
  const queryClient = useQueryClient();
  const [live, setLive] = useState(false);
  const campaign = useQuery({
    queryKey: campaignKey(campaignId ?? ''),
    queryFn: ({ signal }) => callApi(firmwareApi.campaign, { campaignId: campaignId ?? '' }, { signal }),
    enabled: !!campaignId,
    refetchInterval: (query) => (query.state.data?.state === 'running' ? (live ? LIVE_POLL_MS : POLL_MS) : false),
  });
  const jobId = campaign.data?.jobId;
  useEffect(() => {
    if (!campaignId || !jobId) return;
    const key = campaignKey(campaignId);
    return followTopic(() => progressTopic(jobId), {
      onMessage: (payload) => {
        let parsed: ReturnType<typeof CampaignProgressSchema.safeParse>;
        try {
          parsed = CampaignProgressSchema.safeParse(
            JSON.parse(typeof payload === 'string' ? payload : new TextDecoder().decode(payload)),
          );
        } catch {
          return;
        }
        if (!parsed.success || parsed.data.campaignId !== campaignId) return;
        const progress = parsed.data;
        queryClient.setQueryData<Campaign>(key, (known) => (known ? applyProgress(known, progress) : known));
        // Paused or finished: the list's state and counts change too.
        if (progress.state !== 'running') void queryClient.invalidateQueries({ queryKey: ['firmware'] });
      },
      onLive: setLive,
    });
  }, [campaignId, jobId, queryClient]);
  return { campaign, live };
}
