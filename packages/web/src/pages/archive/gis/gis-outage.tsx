import { ReloadOutlined, ThunderboltOutlined } from '@ant-design/icons';
import {
  DARK_METER_COLUMNS,
  type DarkMeter,
  type ExportFormat,
  meterEntity,
  OUTAGE_RES,
  type OutageNode,
  type OutageSummary,
  outageApi,
} from '@meterdesk/contracts';
import { keepPreviousData, skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, App, Button, Drawer, Flex, Spin, Table, Tag, Typography } from 'antd';
import type { TFunction } from 'i18next';
import { useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { callApi } from '@/api/api-client';
import { downloadFile } from '@/api/download';
import type { LiveDeviceUpdate } from '@/app/live/live-devices';
import { useLiveRefresh } from '@/app/live/live-refresh';
import { usePermissions } from '@/app/permissions/permission-context';
import { CONFIRM_CANCEL, CONFIRM_OK } from '@/crud/row-actions';
import { formatDateTime } from '@/fields/date-text';
import { useLookup } from '@/fields/use-lookup';
import { errorText } from '@/i18n/message-text';
import type { LookupOption } from '@/resources/lookups';
import type { MapPlace, MapView, OutageArea, Viewport } from './gis-map';

/** Every outage query starts with this, so the live feed and the refresh button ask for all of them again. */
const OUTAGE_KEY = 'outage';
const PAGE_SIZE = 10;
const TRANSFORMER_AREA = 3;
const METER_DETAIL = `${meterEntity.pagePath}/detail`;

/** Whether an update may change the outage view: a device's supply, or changes a storm left unlisted. */
export const tellsPower = (update: LiveDeviceUpdate) =>
  update.omitted > 0 || update.changes.some((c) => c.change === 'powerDown' || c.change === 'powerUp');

/** How close the map comes to show an area of `radius` metres whole: a street for one meter, a town for a feeder. */
export const zoomFor = (radius: number) => Math.max(10, Math.min(17, Math.round(16 - Math.log2(radius / 150))));

function titleIn(options: readonly LookupOption[], id: string): string | undefined {
  for (const option of options) {
    if (option.value === id) return option.title;
    const found = titleIn(option.children ?? [], id);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Each node whose own dark meters have positions, as an area of the map. */
function areasOf(summary: OutageSummary | undefined): OutageArea[] {
  return (summary?.nodes ?? []).flatMap((node) =>
    node.center && node.ownDarkMeters > 0
      ? [{ gridId: node.gridId, ...node.center, dark: node.dark, title: node.gridName }]
      : [],
  );
}

/** What one line of the tree says of a node: its meters (of how many), areas, consumers, DCUs, since when. */
function nodeFigures(t: TFunction, node: OutageNode): string {
  const meters =
    node.gridType === TRANSFORMER_AREA
      ? [t('outage.node.meters', { dark: node.ownDarkMeters, total: node.ownMeters })]
      : [
          t('outage.node.darkMeters', { count: node.darkMeters }),
          ...(node.areas > 0 ? [t('outage.node.areas', { dark: node.darkAreas, total: node.areas })] : []),
        ];
  return [
    ...meters,
    t('outage.node.consumers', { count: node.darkConsumers }),
    ...(node.darkDcus > 0 ? [t('outage.node.dcus', { count: node.darkDcus })] : []),
    t('outage.node.since', { time: formatDateTime(node.since) }),
  ].join(' · ');
}

function NodeLine({
  node,
  chosen,
  onChoose,
  onShow,
}: {
  node: OutageNode;
  chosen: boolean;
  onChoose: () => void;
  onShow?: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Flex
      vertical
      gap={2}
      data-testid={`outage-node-${node.gridId}`}
      data-dark={node.dark}
      data-dark-meters={node.darkMeters}
      style={{
        padding: '4px 6px',
        marginLeft: node.depth * 14,
        borderLeft: `3px solid ${node.dark ? '#cf1322' : '#fa8c16'}`,
        background: chosen ? '#e6f4ff' : undefined,
        borderRadius: 4,
      }}
    >
      <Flex justify="space-between" align="center" gap={6}>
        <Button
          type="link"
          size="small"
          style={{ padding: 0, fontWeight: 600, height: 'auto', whiteSpace: 'normal', textAlign: 'left' }}
          title={t('outage.node.select', { name: node.gridName })}
          aria-pressed={chosen}
          data-testid={`outage-choose-${node.gridId}`}
          onClick={onChoose}
        >
          {node.gridName}
        </Button>
        <Tag color={node.dark ? 'red' : 'orange'} style={{ marginInlineEnd: 0 }}>
          {t(node.dark ? 'outage.node.dark' : 'outage.node.partly')}
        </Tag>
      </Flex>
      <Typography.Text type="secondary" style={{ fontSize: 12 }}>
        {nodeFigures(t, node)}
      </Typography.Text>
      {onShow && (
        <Button
          type="link"
          size="small"
          style={{ padding: 0, alignSelf: 'flex-start', height: 'auto' }}
          data-testid={`outage-show-${node.gridId}`}
          onClick={onShow}
        >
          {t('outage.node.showOnMap')}
        </Button>
      )}
    </Flex>
  );
}

/** The dark meters of the node chosen (or the panel's place), a page at a time, with their export. */
function DarkMeters({ gridId, title, onClose }: { gridId: string | undefined; title: string; onClose: () => void }) {
  const { t } = useTranslation();
  const { message } = App.useApp();
  const navigate = useNavigate();
  const permissions = usePermissions();
  const [curPage, setCurPage] = useState(1);
  const request = { gridId, curPage, pageSize: PAGE_SIZE };
  const meters = useQuery({
    queryKey: [OUTAGE_KEY, 'meters', request],
    queryFn: ({ signal }) => callApi(outageApi.meters, request, { signal }),
    placeholderData: keepPreviousData,
  });
  const exportFile = useMutation({
    mutationFn: (format: ExportFormat) => downloadFile(outageApi.export, { gridId, format }),
    onError: (error) => message.error(errorText(t, error)),
  });
  const canOpen = permissions.pages.has(METER_DETAIL);
  return (
    <Drawer open onClose={onClose} title={title} size={840} destroyOnHidden data-testid="outage-dark-meters-drawer">
      {permissions.buttons.has(OUTAGE_RES.export) && (
        <Flex gap="small" justify="end" style={{ marginBottom: 12 }}>
          {(['xlsx', 'pdf'] as const).map((format) => (
            <Button
              key={format}
              data-testid={`outage-export-${format}`}
              loading={exportFile.isPending && exportFile.variables === format}
              onClick={() => exportFile.mutate(format)}
            >
              {t(format === 'xlsx' ? 'outage.list.exportExcel' : 'outage.list.exportPdf')}
            </Button>
          ))}
        </Flex>
      )}
      {meters.error ? (
        <Alert type="error" showIcon title={errorText(t, meters.error)} />
      ) : (
        <Table<DarkMeter>
          data-testid="outage-dark-meters"
          rowKey="meterId"
          size="small"
          loading={meters.isFetching}
          dataSource={meters.data?.list ?? []}
          onRow={(row) => ({ 'data-testid': `outage-meter-${row.devAddr}` }) as object}
          pagination={{
            current: curPage,
            pageSize: PAGE_SIZE,
            total: meters.data?.total ?? 0,
            showSizeChanger: false,
            showTotal: (total) => t('crud.total', { count: total }),
            onChange: setCurPage,
          }}
          columns={DARK_METER_COLUMNS.map((key) => ({
            key,
            dataIndex: key,
            title: t(`outage.fields.${key}`),
            // A serial number and a moment read whole, on one line.
            onCell: () => (key === 'devAddr' || key === 'darkSince' ? { style: { whiteSpace: 'nowrap' } } : {}),
            render: (value: string, row: DarkMeter) => {
              if (key === 'darkSince') return formatDateTime(value);
              if (key === 'devAddr' && canOpen)
                return (
                  <Typography.Link onClick={() => navigate(`${METER_DETAIL}?id=${encodeURIComponent(row.meterId)}`)}>
                    {value}
                  </Typography.Link>
                );
              return value;
            },
          }))}
        />
      )}
    </Drawer>
  );
}

/**
 * The simulator's blackout knob for the node chosen (demo and test runs): asks first, then tells the
 * simulator; a server without one answers 409 `simulatorNotRunning`, said in the panel.
 */
function SimulatorKnob({ target }: { target: { id: string; name: string } | null }) {
  const { t } = useTranslation();
  const { modal, message } = App.useApp();
  const power = useMutation({
    mutationFn: (powered: boolean) => callApi(outageApi.simulate, { gridId: target?.id ?? '', powered }),
    // Not returned: antd's message is a thenable that settles when it closes, which the mutation would await.
    onSuccess: (told) => {
      message.success(t('outage.simulate.done', told));
    },
  });
  // An answer belongs to the node it was about.
  const { reset } = power;
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new target starts without the last one's answer
  useEffect(() => reset(), [target?.id, reset]);
  const ask = (powered: boolean) => {
    if (!target) return;
    modal.confirm({
      title: t(powered ? 'outage.simulate.confirmRestore' : 'outage.simulate.confirmBlackout', { name: target.name }),
      content: t(powered ? 'outage.simulate.restoreHint' : 'outage.simulate.blackoutHint'),
      okText: t(powered ? 'outage.simulate.restore' : 'outage.simulate.blackout'),
      cancelText: t('common.actions.cancel'),
      okButtonProps: { danger: !powered, 'data-testid': CONFIRM_OK },
      cancelButtonProps: { 'data-testid': CONFIRM_CANCEL },
      onOk: () => power.mutateAsync(powered).catch(() => undefined),
    });
  };
  return (
    <Flex vertical gap={6} data-testid="outage-simulator" style={{ borderTop: '1px solid #f0f0f0', paddingTop: 8 }}>
      <Typography.Text strong style={{ fontSize: 12 }}>
        {t('outage.simulate.title')}
      </Typography.Text>
      <Typography.Text type="secondary" style={{ fontSize: 12 }} data-testid="outage-simulate-target">
        {target ? t('outage.simulate.target', { name: target.name }) : t('outage.simulate.noTarget')}
      </Typography.Text>
      <Flex gap="small" wrap>
        <Button
          danger
          size="small"
          icon={<ThunderboltOutlined />}
          disabled={!target}
          loading={power.isPending && power.variables === false}
          data-testid="outage-blackout"
          onClick={() => ask(false)}
        >
          {t('outage.simulate.blackout')}
        </Button>
        <Button
          size="small"
          disabled={!target}
          loading={power.isPending && power.variables === true}
          data-testid="outage-restore"
          onClick={() => ask(true)}
        >
          {t('outage.simulate.restore')}
        </Button>
      </Flex>
      {power.error && (
        <Alert
          type="error"
          showIcon
          title={errorText(t, power.error)}
          data-testid="outage-simulate-error"
          closable={{ onClose: () => power.reset() }}
        />
      )}
    </Flex>
  );
}

/**
 * The GIS page's outage layer: the dark meters in view drawn over the map (points, clusters and the
 * areas they lie in) and the panel rolling them up the grid tree: which nodes are dark, how many
 * meters, consumers and DCUs, since when; the list of dark meters with its export; and, for a user
 * holding it, the simulator's blackout knob. Everything is read again when a device under the
 * filter's node (the whole scope without) loses or regains supply, and every 30 s without the feed.
 */
export function OutageLayer({
  map,
  viewport,
  gridId,
  onFocus,
}: {
  map: MapView | null;
  viewport: Viewport | null;
  /** The page filter's grid node. */
  gridId: string | undefined;
  onFocus: (place: MapPlace) => void;
}) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const permissions = usePermissions();
  const tree = useLookup('gridTree');
  // A node chosen in the panel narrows the list and is what the simulator acts on; the filter's node otherwise.
  const [chosen, setChosen] = useState<string | null>(null);
  const [listOpen, setListOpen] = useState(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: another filter node is another place: the choice made in the last one goes
  useEffect(() => setChosen(null), [gridId]);

  const nodes = useMemo(() => (gridId ? [gridId] : undefined), [gridId]);
  const live = useLiveRefresh(nodes, {
    concerns: tellsPower,
    refresh: () => void queryClient.invalidateQueries({ queryKey: [OUTAGE_KEY] }),
    poll: true,
  });

  const summary = useQuery({
    queryKey: [OUTAGE_KEY, 'summary', gridId ?? null],
    queryFn: ({ signal }) => callApi(outageApi.summary, { gridId }, { signal }),
    placeholderData: keepPreviousData,
  });
  const pointsRequest = viewport && { ...viewport, gridId };
  const points = useQuery({
    queryKey: [OUTAGE_KEY, 'points', pointsRequest],
    queryFn: pointsRequest ? ({ signal }) => callApi(outageApi.points, pointsRequest, { signal }) : skipToken,
    placeholderData: keepPreviousData,
  });

  useEffect(() => {
    if (!map || !points.data) return;
    map.drawOutages({
      points: points.data,
      areas: areasOf(summary.data),
      pointTitle: (point) => `${point.label} · ${t('outage.node.since', { time: formatDateTime(point.since) })}`,
      clusterTitle: (count) => t('outage.clusterTitle', { count }),
    });
  }, [map, points.data, summary.data, t]);
  useEffect(() => () => map?.drawOutages(null), [map]);

  const data = summary.data;
  const chosenNode = data?.nodes.find((node) => node.gridId === chosen);
  const targetId = chosen ?? gridId;
  const targetName =
    targetId &&
    (chosenNode?.gridName ??
      data?.nodes.find((n) => n.gridId === targetId)?.gridName ??
      titleIn(tree.options, targetId));
  const listCount = chosenNode ? chosenNode.darkMeters : (data?.darkMeters ?? 0);
  const error = summary.error ?? points.error;

  return (
    <Flex vertical gap={8} data-testid="outage-panel" data-dark-meters={data?.darkMeters}>
      <Flex justify="space-between" align="center" gap={8}>
        <Typography.Text strong>{t('outage.title')}</Typography.Text>
        <Flex gap={4} align="center">
          <Tag color={live ? 'green' : 'default'} data-testid="outage-live" data-live={live}>
            {t(live ? 'outage.live' : 'outage.polling')}
          </Tag>
          <Button
            size="small"
            type="text"
            icon={<ReloadOutlined />}
            aria-label={t('outage.refresh')}
            title={t('outage.refresh')}
            loading={summary.isFetching}
            data-testid="outage-refresh"
            onClick={() => void queryClient.invalidateQueries({ queryKey: [OUTAGE_KEY] })}
          />
        </Flex>
      </Flex>
      {error && <Alert type="error" showIcon title={errorText(t, error)} data-testid="outage-error" />}
      {!data ? (
        !error && <Spin size="small" />
      ) : data.darkMeters === 0 && data.darkDcus === 0 ? (
        <Typography.Text type="secondary" data-testid="outage-none">
          {t('outage.none')}
        </Typography.Text>
      ) : (
        <>
          <Flex vertical gap={2} data-testid="outage-totals">
            <Typography.Text>
              {t('outage.totals', {
                meters: data.darkMeters,
                consumers: data.darkConsumers,
                since: data.since ? formatDateTime(data.since) : '',
              })}
            </Typography.Text>
            {data.affectedAreas > 0 && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('outage.areasDark', { dark: data.darkAreas, affected: data.affectedAreas })}
              </Typography.Text>
            )}
            {data.darkDcus > 0 && (
              <Typography.Text type="secondary" style={{ fontSize: 12 }}>
                {t('outage.dcusDark', { count: data.darkDcus })}
              </Typography.Text>
            )}
            {(points.data?.unplaced ?? 0) > 0 && (
              <Typography.Text type="warning" style={{ fontSize: 12 }} data-testid="outage-unplaced">
                {t('outage.unplaced', { count: points.data?.unplaced })}
              </Typography.Text>
            )}
          </Flex>
          <Flex vertical gap={4} data-testid="outage-tree">
            {data.nodes.map((node) => {
              const center = node.center;
              return (
                <NodeLine
                  key={node.gridId}
                  node={node}
                  chosen={node.gridId === chosen}
                  onChoose={() => setChosen(node.gridId === chosen ? null : node.gridId)}
                  onShow={
                    center
                      ? () => onFocus({ lat: center.lat, lng: center.lng, zoom: zoomFor(center.radius) })
                      : undefined
                  }
                />
              );
            })}
          </Flex>
          <Flex gap="small" wrap>
            <Button size="small" data-testid="outage-dark-meters-open" onClick={() => setListOpen(true)}>
              {t('outage.list.open', { count: listCount })}
            </Button>
            {chosen && (
              <Button size="small" type="link" data-testid="outage-clear-choice" onClick={() => setChosen(null)}>
                {t('outage.clearChoice')}
              </Button>
            )}
          </Flex>
        </>
      )}
      {permissions.buttons.has(OUTAGE_RES.simulate) && (
        <SimulatorKnob target={targetId && targetName ? { id: targetId, name: targetName } : null} />
      )}
      {listOpen && (
        <DarkMeters
          gridId={targetId}
          title={chosenNode ? t('outage.list.titleOf', { name: chosenNode.gridName }) : t('outage.list.title')}
          onClose={() => setListOpen(false)}
        />
      )}
    </Flex>
  );
}
