import {
  type Campaign,
  type CampaignDevice,
  type CampaignProgress,
  FIRMWARE_RES,
  type Firmware,
  firmwareApi,
} from '@meterdesk/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { CONFIRM_OK } from '@/crud/row-actions';
import { ok, stubApi } from '@/test/api-stub';
import { feeds } from '@/test/progress-feed';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

vi.mock('@/app/live/broker-topics', () => import('@/test/progress-feed').then((m) => m.brokerTopicsMock));

const id = (n: number) => n.toString(16).padStart(32, '0');
const firmware: Firmware = {
  id: id(1),
  name: 'Carrier 9',
  description: '',
  equipment: 'carrierChip',
  upgradeMethod: 'p2p',
  targetVersion: 'MT-9.0.0',
  splitSize: 1024,
  imageId: id(2),
  fileName: 'carrier.bin',
  size: 4096,
  checksum: 'a'.repeat(64),
  progress: '1/5',
  campaignState: 'running',
  createTime: '2026-01-02T08:00:00.000Z',
  updateTime: '2026-01-02T08:00:00.000Z',
};
const device = (deviceKey: string, over: Partial<CampaignDevice> = {}): CampaignDevice => ({
  deviceKind: 'meter',
  deviceKey,
  canary: false,
  step: 'waiting',
  progress: '',
  nextBlock: 0,
  blocks: 4,
  fromVersion: 'MT-2.1.4',
  currentVersion: 'MT-2.1.4',
  reason: null,
  updateTime: '2026-01-02T08:00:00.000Z',
  ...over,
});
const summary = {
  campaignId: id(3),
  firmwareId: id(1),
  firmwareName: 'Carrier 9',
  targetVersion: 'MT-9.0.0',
  method: 'p2p',
  state: 'running',
  pausedReason: null,
  canaryCount: 1,
  maxFailurePercent: 10,
  jobId: 'job-1',
  createdBy: 'admin',
  createTime: '2026-01-02T08:00:00.000Z',
  finishTime: null,
  total: 5,
  done: 1,
  failed: 0,
} satisfies Omit<Campaign, 'devices'>;
const campaign: Campaign = {
  ...summary,
  devices: [
    device('M1', { canary: true, step: 'done', progress: '00', nextBlock: 4, currentVersion: 'MT-9.0.0' }),
    device('M2', { step: 'transfer', progress: '66', nextBlock: 2 }),
    device('M3', { step: 'readback', progress: '88', nextBlock: 4 }),
    device('M4'),
    device('M5', { step: 'verify', progress: '66', nextBlock: 4 }),
  ],
};

describe('firmware campaign view', () => {
  it("shows spec §4's progress icons, follows them live, stops at the threshold and resumes", async () => {
    const user = userEvent.setup();
    let current = campaign;
    const api = stubApi({
      [firmwareApi.detail.path]: () => ok(firmware),
      [firmwareApi.campaigns.path]: () => ok({ list: [summary], total: 1, curPage: 1, pageSize: 20 }),
      [firmwareApi.campaign.path]: () => ok(current),
      [firmwareApi.resume.path]: () => ok({ campaignId: id(3), jobId: 'job-2' }),
    });
    renderInShell(permittedTree([FIRMWARE_RES.detail, FIRMWARE_RES.start]), `${FIRMWARE_RES.detail}?id=${id(1)}`);
    const icon = async (key: string) => (await screen.findByTestId(`upgrade-progress-${key}`)).dataset.progress;
    expect(await icon('M1')).toBe('00');
    expect(await icon('M2')).toBe('66');
    expect(await icon('M3')).toBe('88');
    expect(await icon('M4')).toBe('');
    expect(screen.getByTestId('upgrade-progress-M4').textContent).toBe('Waiting');
    expect(screen.getByTestId('upgrade-progress-M3').textContent).toBe('88 Refresh');

    await waitFor(() => expect(feeds.has('progress/job-1')).toBe(true));
    // A device's change arrives on the broker and shows at once.
    const push = (progress: CampaignProgress) =>
      act(() => feeds.get('progress/job-1')?.onMessage(JSON.stringify(progress)));
    const doneM2 = device('M2', { step: 'done', progress: '00', nextBlock: 4, currentVersion: 'MT-9.0.0' });
    push({ campaignId: id(3), state: 'running', pausedReason: null, total: 5, done: 2, failed: 0, devices: [doneM2] });
    await waitFor(() => expect(screen.getByTestId('upgrade-progress-M2').dataset.progress).toBe('00'));
    expect(screen.getByTestId('upgrade-progress-M5').dataset.progress).toBe('66');

    // A failure past the threshold pauses the campaign, as the server then says too.
    const failedM5 = device('M5', { step: 'failed', progress: '99', nextBlock: 4, reason: 'firmwareVerifyFailed' });
    current = {
      ...campaign,
      state: 'paused',
      pausedReason: 'threshold',
      done: 2,
      failed: 1,
      devices: campaign.devices.map((d) => (d.deviceKey === 'M2' ? doneM2 : d.deviceKey === 'M5' ? failedM5 : d)),
    };
    push({
      campaignId: id(3),
      state: 'paused',
      pausedReason: 'threshold',
      total: 5,
      done: 2,
      failed: 1,
      devices: [failedM5],
    });
    await waitFor(() => expect(screen.getByTestId('upgrade-progress-M5').dataset.progress).toBe('99'));
    expect(screen.getByTestId('upgrade-progress-M5').textContent).toBe('99 Failed');
    expect(screen.getByTestId('campaign-device-M5').textContent).toContain('The device could not verify the image');
    const paused = await screen.findByTestId('campaign-paused');
    expect(paused.textContent).toContain('failures passed the threshold of 10 %');

    await user.click(within(paused).getByTestId('campaign-resume'));
    await user.click((await screen.findAllByTestId(CONFIRM_OK)).at(-1) as HTMLElement);
    await waitFor(() => expect(api.callsTo(firmwareApi.resume.path)).toHaveLength(1));
    expect(api.callsTo(firmwareApi.resume.path)[0]?.body).toEqual({ campaignId: id(3) });
  });
});
