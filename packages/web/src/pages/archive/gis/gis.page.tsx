import {
  GIS_KINDS,
  type GisAnswer,
  type GisCluster,
  type GisKind,
  type GisPoint,
  gisApi,
  IdSchema,
  METER_STATUSES,
  type MeterStatus,
} from '@meterdesk/contracts';
import { keepPreviousData, skipToken, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Form, Spin, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { describeRequest } from '@/crud/crud-config';
import { FieldInput } from '@/fields/field-input';
import { errorText } from '@/i18n/message-text';
import { GisLegend } from './gis-legend';
import { createLeafletView, type MapPlace, type MapView, type Viewport } from './gis-map';
import { GisPopup } from './gis-popup';

/** The map's filters, drawn from the points call's own field meta. */
const FILTER_FIELDS = describeRequest(gisApi.points, 'gis.fields', ['gridId', 'kinds', 'meterStatus']);

/** A drag or a wheel spin ends in a burst of moves; the server is asked once it settles. */
export const VIEWPORT_DEBOUNCE_MS = 250;

interface Filters {
  gridId?: string;
  kinds: GisKind[];
  meterStatus: MeterStatus[];
}

const NO_FILTERS: Filters = { kinds: [], meterStatus: [] };

const numberIn = (text: string | null, min: number, max: number): number | null => {
  const value = text === null || text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= min && value <= max ? value : null;
};
const listed = (text: string | null): string[] => (text ? text.split(',') : []);

/**
 * The view and filters travel in the URL, which the shell keeps per tab: coming back from a
 * detail page opened in a popup finds the map where it was left. Anything unreadable is dropped.
 */
function readUrl(params: URLSearchParams): { place: MapPlace | null; filters: Filters } {
  const lat = numberIn(params.get('lat'), -90, 90);
  const lng = numberIn(params.get('lng'), -180, 180);
  const zoom = numberIn(params.get('zoom'), 0, 22);
  const gridId = params.get('gridId') ?? '';
  return {
    place: lat !== null && lng !== null && zoom !== null ? { lat, lng, zoom: Math.round(zoom) } : null,
    filters: {
      gridId: IdSchema.safeParse(gridId).success ? gridId : undefined,
      kinds: listed(params.get('kinds')).filter((kind): kind is GisKind => GIS_KINDS.includes(kind as GisKind)),
      meterStatus: listed(params.get('meterStatus'))
        .map(Number)
        .filter((status): status is MeterStatus => METER_STATUSES.includes(status as MeterStatus)),
    },
  };
}

function writeUrl(place: MapPlace | null, filters: Filters): URLSearchParams {
  const params = new URLSearchParams();
  if (place) {
    params.set('lat', place.lat.toFixed(5));
    params.set('lng', place.lng.toFixed(5));
    params.set('zoom', String(place.zoom));
  }
  if (filters.gridId) params.set('gridId', filters.gridId);
  if (filters.kinds.length) params.set('kinds', filters.kinds.join(','));
  if (filters.meterStatus.length) params.set('meterStatus', filters.meterStatus.join(','));
  return params;
}

/** The filter bar's values; a cleared select is no condition, as in every list's filter bar. */
function readForm(values: Record<string, unknown>): Filters {
  const list = <T,>(value: unknown) => (Array.isArray(value) ? (value as T[]) : []);
  const gridId = typeof values.gridId === 'string' && values.gridId !== '' ? values.gridId : undefined;
  return { gridId, kinds: list<GisKind>(values.kinds), meterStatus: list<MeterStatus>(values.meterStatus) };
}

function pointsRequest(viewport: Viewport, filters: Filters) {
  return {
    ...viewport,
    kinds: filters.kinds.length ? filters.kinds : [...GIS_KINDS],
    gridId: filters.gridId,
    meterStatus: filters.meterStatus.length ? filters.meterStatus : undefined,
  };
}

const OVERLAY = { position: 'absolute', zIndex: 1000 } as const;

/** What the map shows now: loading, how many are in view, nothing in view, or why it failed. */
function ViewStatus({ answer, fetching, error }: { answer?: GisAnswer; fetching: boolean; error: unknown }) {
  const { t } = useTranslation();
  if (error) return <Alert type="error" showIcon title={errorText(t, error)} data-testid="gis-error" />;
  if (!answer) return <Spin size="small" data-testid="gis-loading" />;
  return (
    <Flex gap={8} align="center">
      {fetching && <Spin size="small" data-testid="gis-loading" />}
      {answer.total === 0 ? (
        <Typography.Text data-testid="gis-empty">{t('gis.empty')}</Typography.Text>
      ) : (
        <Typography.Text data-testid="gis-count">{t('gis.inView', { count: answer.total })}</Typography.Text>
      )}
    </Flex>
  );
}

/**
 * `/archiveSetting/gis`: consumers, meters and DCUs on a map. The server answers only what is in
 * view, clustered for the zoom; each settled move asks again and drops the question before it.
 */
export function GisPage() {
  const { t } = useTranslation();
  const [form] = Form.useForm();
  const [params, setParams] = useSearchParams();
  const [initial] = useState(() => readUrl(params));
  const place = useRef(initial.place);
  const [filters, setFilters] = useState(initial.filters);
  const [view, setView] = useState<{ viewport: Viewport; place: MapPlace } | null>(null);
  const [selected, setSelected] = useState<GisPoint | null>(null);
  const [tilesReachable, setTilesReachable] = useState<boolean | null>(null);
  const container = useRef<HTMLDivElement>(null);
  const map = useRef<MapView | null>(null);
  const popupContent = useMemo(() => document.createElement('div'), []);

  const config = useQuery({
    queryKey: ['gis', 'config'],
    queryFn: ({ signal }) => callApi(gisApi.config, {}, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });

  useEffect(() => {
    if (!config.data || !container.current) return;
    let settle: ReturnType<typeof setTimeout> | undefined;
    const created = createLeafletView(container.current, config.data, place.current, {
      onViewport: (viewport, at) => {
        place.current = at;
        clearTimeout(settle);
        settle = setTimeout(() => setView({ viewport, place: at }), VIEWPORT_DEBOUNCE_MS);
      },
      onPoint: setSelected,
      onPopupClosed: () => setSelected(null),
      onTiles: setTilesReachable,
    });
    map.current = created;
    return () => {
      clearTimeout(settle);
      created.destroy();
      map.current = null;
    };
  }, [config.data]);

  const request = view && pointsRequest(view.viewport, filters);
  // A new question unsubscribes the previous one, and react-query aborts a request nobody awaits.
  const points = useQuery({
    queryKey: ['gis', 'points', request],
    queryFn: request ? ({ signal }) => callApi(gisApi.points, request, { signal }) : skipToken,
    placeholderData: keepPreviousData,
  });

  useEffect(() => {
    if (!points.data) return;
    const kindName = (cluster: GisCluster) => t(`gis.kinds.${cluster.kind}`);
    map.current?.draw(points.data, (cluster) =>
      t('gis.clusterTitle', { count: cluster.count, kind: kindName(cluster) }),
    );
  }, [points.data, t]);

  // Opened after the popup's content is rendered into its element, so Leaflet sizes it right.
  useEffect(() => {
    if (selected) map.current?.openPopup(selected, popupContent);
  }, [selected, popupContent]);

  const search = view && writeUrl(view.place, filters).toString();
  useEffect(() => {
    if (search !== null && search !== params.toString()) setParams(search, { replace: true });
  }, [search, params, setParams]);

  const noTiles = config.data && config.data.tileUrl === null;
  return (
    <Flex vertical gap="small" data-testid="gis-page">
      <Form
        form={form}
        layout="inline"
        initialValues={initial.filters}
        onValuesChange={(_changed, values) => setFilters(readForm(values))}
        style={{ rowGap: 12 }}
        data-testid="gis-filters"
      >
        {FILTER_FIELDS.map((field) => (
          <Form.Item key={field.key} name={field.key} label={t(field.label)}>
            <FieldInput field={field} mode="filter" />
          </Form.Item>
        ))}
        <Form.Item>
          <Button
            data-testid="gis-reset"
            onClick={() => {
              form.setFieldsValue({ gridId: undefined, ...NO_FILTERS });
              setFilters(NO_FILTERS);
            }}
          >
            {t('common.actions.reset')}
          </Button>
        </Form.Item>
      </Form>
      <div style={{ position: 'relative', height: 'calc(100vh - 240px)', minHeight: 420 }}>
        {config.error ? (
          <Alert type="error" showIcon title={errorText(t, config.error)} data-testid="gis-error" />
        ) : (
          <div ref={container} className="gis-map" style={{ position: 'absolute', inset: 0 }} data-testid="gis-map">
            {!config.data && (
              <Flex vertical align="center" justify="center" gap="small" style={{ height: '100%' }}>
                <Spin />
                <Typography.Text type="secondary">{t('gis.loading')}</Typography.Text>
              </Flex>
            )}
          </div>
        )}
        {config.data && (
          <Card size="small" style={{ ...OVERLAY, top: 10, left: '50%', transform: 'translateX(-50%)' }}>
            <ViewStatus answer={points.data} fetching={points.isFetching} error={points.error} />
          </Card>
        )}
        {config.data && (
          <Card size="small" style={{ ...OVERLAY, bottom: 24, left: 10, maxWidth: 260, opacity: 0.95 }}>
            <GisLegend />
            {(noTiles || tilesReachable === false) && (
              <Typography.Text
                type="secondary"
                style={{ display: 'block', marginTop: 8, fontSize: 12 }}
                data-testid="gis-tiles-hint"
              >
                {t(noTiles ? 'gis.noTiles' : 'gis.tilesOffline')}
              </Typography.Text>
            )}
          </Card>
        )}
      </div>
      {selected && createPortal(<GisPopup point={selected} />, popupContent)}
    </Flex>
  );
}
