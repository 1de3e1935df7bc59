import {
  type Campaign,
  type CampaignDevice,
  type CampaignSummary,
  DEFAULT_CANARY_PERCENT,
  DEFAULT_MAX_FAILURE_PERCENT,
  equipmentTarget,
  FIRMWARE_RES,
  type Firmware,
  firmwareApi,
  MAX_BATCH_DEVICES,
} from '@meterdesk/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  Alert,
  App,
  Button,
  Card,
  Flex,
  Form,
  InputNumber,
  Modal,
  Progress,
  Space,
  Table,
  type TableColumnsType,
  Tag,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { callApi } from '@/api/api-client';
import { usePermissions } from '@/app/permissions/permission-context';
import { CONFIRM_CANCEL, CONFIRM_OK } from '@/crud/row-actions';
import { FieldInput } from '@/fields/field-input';
import { DCU_FIELD, useDcuNumbers } from '@/pages/operations/dcu-picker';
import { MeterPicker, type PickedMeter } from '@/pages/operations/meter-picker';
import { RefusalAlert } from '@/pages/operations/results-panel';
import { UpgradeProgressIcon } from './upgrade-progress';
import { campaignKey, useCampaign } from './use-campaign';

const STATE_COLORS: Record<Campaign['state'], string> = {
  running: 'processing',
  paused: 'warning',
  finished: 'success',
};

/** DCUs from the existing picker, handed up by number once their options have loaded. */
function DcuSelection({ onChange }: { onChange: (dcuNos: string[]) => void }) {
  const { t } = useTranslation();
  const [ids, setIds] = useState<string[]>([]);
  const numbers = useDcuNumbers(ids).join(',');
  useEffect(() => onChange(numbers ? numbers.split(',') : []), [numbers, onChange]);
  return (
    <Form.Item
      label={t(DCU_FIELD.label)}
      extra={t('operations.screen.selectedDcus', { count: ids.length, max: MAX_BATCH_DEVICES })}
    >
      <FieldInput
        field={DCU_FIELD}
        value={ids}
        onChange={(next) => setIds(((next as string[] | undefined) ?? []).slice(0, MAX_BATCH_DEVICES))}
      />
    </Form.Item>
  );
}

/**
 * Starts a campaign: devices of the firmware's equipment (meters from the batch operation's picker, or
 * DCUs), at most 30, the canary share and the failure threshold, then a confirmation naming the count.
 */
function StartCampaign({
  firmware,
  onClose,
  onStarted,
}: {
  firmware: Firmware;
  onClose: () => void;
  onStarted: (campaignId: string) => void;
}) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const [meters, setMeters] = useState<PickedMeter[]>([]);
  const [dcus, setDcus] = useState<string[]>([]);
  const [canaryPercent, setCanary] = useState<number>(DEFAULT_CANARY_PERCENT);
  const [maxFailurePercent, setThreshold] = useState<number>(DEFAULT_MAX_FAILURE_PERCENT);
  const [refusal, setRefusal] = useState<unknown>(null);
  const target = equipmentTarget(firmware.equipment);
  const devices = target === 'meter' ? meters.map((m) => m.devAddr) : dcus;
  const start = useMutation({
    mutationFn: () =>
      callApi(firmwareApi.start, { firmwareId: firmware.id, devices, canaryPercent, maxFailurePercent }),
    onSuccess: (started) => {
      message.success(t('firmware.campaign.started'));
      onStarted(started.campaignId);
    },
    onError: setRefusal,
  });
  const ask = () => {
    if (devices.length === 0)
      return void message.warning(
        t(target === 'meter' ? 'operations.screen.chooseMeters' : 'operations.screen.chooseDcus'),
      );
    modal.confirm({
      title: t('firmware.campaign.confirmStart', { count: devices.length, version: firmware.targetVersion }),
      okText: t('firmware.campaign.start'),
      cancelText: t('common.actions.cancel'),
      okButtonProps: { danger: true, 'data-testid': CONFIRM_OK },
      cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
      onOk: () => start.mutateAsync().catch(() => undefined),
    });
  };
  return (
    <Modal
      open
      width={1100}
      title={t('firmware.campaign.title')}
      onCancel={onClose}
      footer={
        <Space>
          <Button onClick={onClose}>{t('common.actions.cancel')}</Button>
          <Button type="primary" loading={start.isPending} onClick={ask} data-testid="campaign-start">
            {t('firmware.campaign.start')}
          </Button>
        </Space>
      }
    >
      <Flex vertical gap="middle" data-testid="campaign-modal">
        <Typography.Text strong>
          {t(target === 'meter' ? 'firmware.campaign.pickMeters' : 'firmware.campaign.pickDcus')}
        </Typography.Text>
        {target === 'meter' ? (
          <MeterPicker picked={meters} onChange={setMeters} testIdPrefix="campaign" />
        ) : (
          <DcuSelection onChange={setDcus} />
        )}
        <Form layout="inline">
          <Form.Item label={t('firmware.campaign.canaryPercent')} tooltip={t('firmware.campaign.canaryHelp')}>
            <InputNumber
              min={1}
              max={100}
              value={canaryPercent}
              onChange={(v) => setCanary(v ?? DEFAULT_CANARY_PERCENT)}
              data-testid="campaign-canary"
            />
          </Form.Item>
          <Form.Item label={t('firmware.campaign.maxFailurePercent')} tooltip={t('firmware.campaign.thresholdHelp')}>
            <InputNumber
              min={0}
              max={100}
              value={maxFailurePercent}
              onChange={(v) => setThreshold(v ?? DEFAULT_MAX_FAILURE_PERCENT)}
              data-testid="campaign-threshold"
            />
          </Form.Item>
        </Form>
        {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      </Flex>
    </Modal>
  );
}

/** The devices of a campaign with spec §4's icons, live. Rows: `campaign-device-<key>`. */
export function CampaignDevices({ devices }: { devices: readonly CampaignDevice[] }) {
  const { t } = useTranslation();
  const columns: TableColumnsType<CampaignDevice> = [
    {
      key: 'deviceKey',
      title: t('firmware.device.deviceKey'),
      render: (_, d) => (
        <Space>
          {d.deviceKey}
          {d.canary && <Tag color="purple">{t('firmware.campaign.canary')}</Tag>}
        </Space>
      ),
    },
    {
      key: 'progress',
      title: t('firmware.device.progress'),
      width: 150,
      render: (_, d) => <UpgradeProgressIcon progress={d.progress} device={d.deviceKey} />,
    },
    { key: 'step', title: t('firmware.device.step'), width: 150, render: (_, d) => t(`firmware.steps.${d.step}`) },
    {
      key: 'blocks',
      title: t('firmware.device.blocks'),
      width: 180,
      render: (_, d) => (
        <Progress
          size="small"
          percent={d.blocks ? Math.floor((100 * d.nextBlock) / d.blocks) : 0}
          format={() => `${d.nextBlock}/${d.blocks}`}
        />
      ),
    },
    { key: 'fromVersion', title: t('firmware.device.fromVersion'), dataIndex: 'fromVersion', width: 130 },
    { key: 'currentVersion', title: t('firmware.device.currentVersion'), dataIndex: 'currentVersion', width: 130 },
    {
      key: 'reason',
      title: t('firmware.device.reason'),
      render: (_, d) => (d.reason ? <Typography.Text type="danger">{t(`errors.${d.reason}`)}</Typography.Text> : null),
    },
  ];
  return (
    <Table<CampaignDevice>
      rowKey={(d) => `${d.deviceKind}:${d.deviceKey}`}
      size="small"
      columns={columns}
      dataSource={[...devices]}
      pagination={false}
      onRow={(d) => ({ 'data-testid': `campaign-device-${d.deviceKey}` }) as object}
    />
  );
}

/** One campaign: its state, the canary and the threshold, Resume when it paused, and its devices. */
function CampaignView({ campaignId }: { campaignId: string }) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const [refusal, setRefusal] = useState<unknown>(null);
  const { campaign } = useCampaign(campaignId);
  const resume = useMutation({
    mutationFn: () => callApi(firmwareApi.resume, { campaignId }),
    onSuccess: async () => {
      message.success(t('firmware.campaign.resumed'));
      await queryClient.invalidateQueries({ queryKey: ['firmware'] });
    },
    onError: setRefusal,
  });
  const c = campaign.data;
  if (!c) return null;
  const canStart = permissions.buttons.has(FIRMWARE_RES.start);
  return (
    <Flex vertical gap="small" data-testid="campaign-view" data-state={c.state}>
      <Space wrap>
        <Tag color={STATE_COLORS[c.state]} data-testid="campaign-state" data-state={c.state}>
          {t(`firmware.campaignStates.${c.state}`)}
        </Tag>
        <span data-testid="campaign-summary">{t('firmware.campaign.summary', c)}</span>
        <Tag>{t('firmware.campaign.canaryRunning', { count: c.canaryCount })}</Tag>
        <Tag>{t('firmware.campaign.threshold', { percent: c.maxFailurePercent })}</Tag>
      </Space>
      {c.state === 'paused' && (
        <Alert
          type="warning"
          showIcon
          data-testid="campaign-paused"
          data-reason={c.pausedReason ?? ''}
          title={
            c.pausedReason === 'canary'
              ? t('firmware.campaign.pausedCanary')
              : t('firmware.campaign.pausedThreshold', { percent: c.maxFailurePercent })
          }
          action={
            canStart && (
              <Button
                type="primary"
                loading={resume.isPending}
                data-testid="campaign-resume"
                onClick={() =>
                  modal.confirm({
                    title: t('firmware.campaign.confirmResume'),
                    okText: t('firmware.campaign.resume'),
                    cancelText: t('common.actions.cancel'),
                    okButtonProps: { 'data-testid': CONFIRM_OK },
                    cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
                    onOk: () => resume.mutateAsync().catch(() => undefined),
                  })
                }
              >
                {t('firmware.campaign.resume')}
              </Button>
            )
          }
        />
      )}
      {refusal !== null && <RefusalAlert error={refusal} onClose={() => setRefusal(null)} />}
      <CampaignDevices devices={c.devices} />
    </Flex>
  );
}

/**
 * The firmware detail's campaigns: Upgrade (with the `start` button) opens the device picker, the
 * campaigns started so far are listed newest first, and the one chosen (the latest unless another is)
 * is shown as it goes.
 */
export function FirmwareCampaigns({ firmwareId }: { firmwareId: string }) {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const queryClient = useQueryClient();
  const [starting, setStarting] = useState(false);
  const [chosen, setChosen] = useState<string | undefined>(undefined);
  const firmware = useQuery({
    queryKey: ['firmware', 'detail', firmwareId],
    queryFn: ({ signal }) => callApi(firmwareApi.detail, { id: firmwareId }, { signal }) as Promise<Firmware>,
    enabled: firmwareId !== '',
  });
  const campaigns = useQuery({
    queryKey: ['firmware', 'campaigns', firmwareId],
    queryFn: ({ signal }) => callApi(firmwareApi.campaigns, { firmwareId, pageSize: 20 }, { signal }),
    enabled: firmwareId !== '',
  });
  const list = campaigns.data?.list ?? [];
  const shown = chosen ?? list[0]?.campaignId;
  const columns: TableColumnsType<CampaignSummary> = [
    {
      key: 'createTime',
      title: t('firmware.campaign.createTime'),
      render: (_, c) => c.createTime.slice(0, 19).replace('T', ' '),
    },
    { key: 'createdBy', title: t('firmware.campaign.createdBy'), dataIndex: 'createdBy' },
    {
      key: 'state',
      title: t('firmware.fields.campaignState'),
      render: (_, c) => t(`firmware.campaignStates.${c.state}`),
    },
    { key: 'summary', title: t('firmware.fields.progress'), render: (_, c) => t('firmware.campaign.summary', c) },
  ];
  return (
    <Card
      title={t('firmware.campaign.history')}
      extra={
        permissions.buttons.has(FIRMWARE_RES.start) &&
        firmware.data && (
          <Button type="primary" data-testid="firmware-upgrade" onClick={() => setStarting(true)}>
            {t('firmware.actions.upgrade')}
          </Button>
        )
      }
      data-testid="campaign-history"
    >
      <Flex vertical gap="middle">
        <Table<CampaignSummary>
          rowKey="campaignId"
          size="small"
          columns={columns}
          dataSource={list}
          pagination={false}
          locale={{ emptyText: t('firmware.campaign.none') }}
          rowClassName={(c) => (c.campaignId === shown ? 'ant-table-row-selected' : '')}
          onRow={(c) =>
            ({ 'data-testid': `campaign-${c.campaignId}`, onClick: () => setChosen(c.campaignId) }) as object
          }
        />
        {shown && <CampaignView key={shown} campaignId={shown} />}
      </Flex>
      {starting && firmware.data && (
        <StartCampaign
          firmware={firmware.data}
          onClose={() => setStarting(false)}
          onStarted={async (campaignId) => {
            setStarting(false);
            setChosen(campaignId);
            await queryClient.invalidateQueries({ queryKey: ['firmware'] });
            await queryClient.invalidateQueries({ queryKey: campaignKey(campaignId) });
          }}
        />
      )}
    </Card>
  );
}
