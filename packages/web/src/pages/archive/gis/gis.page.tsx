import {
  GIS_KINDS,
  type GisAnswer,
  type GisCluster,
  type GisFound,
  type GisKind,
  gisApi,
  gisFindApi,
  IdSchema,
  LOCATABLE_KINDS,
  type LocatableKind,
  METER_STATUSES,
  type MeterStatus,
} from '@meterdesk/contracts';
import { keepPreviousData, skipToken, useQuery } from '@tanstack/react-query';
import { Alert, Button, Card, Flex, Form, Spin, Switch, Typography } from 'antd';
import { useEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { callApi } from '@/api/api-client';
import { describeRequest } from '@/crud/crud-config';
import { FieldInput } from '@/fields/field-input';
import { errorText } from '@/i18n/message-text';
import { FOCUS_PARAM } from '@/resources/archive/show-on-map';
import { GisLegend } from './gis-legend';
import { createLeafletView, type MapPlace, type MapView, type Viewport } from './gis-map';
import { OutageLayer } from './gis-outage';
import { GisPopup, type ShownPoint } from './gis-popup';
import { GisSearch } from './gis-search';
import { GisUnplacedMeters } from './gis-unplaced';

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

/** The outage layer is on (`outages=1`): a link may open the map on it. */
export const OUTAGES_PARAM = 'outages';

/** How close the map comes to a found record: its street. */
export const FOCUS_ZOOM = 17;

/** The record a detail page's "show on map" names (`focus=<kind>:<id>`), if the URL holds a sound one. */
function readFocus(focus: string | null): { kind: LocatableKind; id: string } | null {
  const [kind = '', id = ''] = (focus ?? '').split(':');
  return LOCATABLE_KINDS.includes(kind as LocatableKind) && IdSchema.safeParse(id).success
    ? { kind: kind as LocatableKind, id }
    : null;
}

const pointOf = (found: GisFound): ShownPoint => ({
  kind: found.kind,
  id: found.id,
  label: found.label,
  status: found.status,
  lat: found.lat ?? 0,
  lng: found.lng ?? 0,
  placement: found.placement,
});

const numberIn = (text: string | null, min: number, max: number): number | null => {
  const value = text === null || text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) && value >= min && value <= max ? value : null;
};
const listed = (text: string | null): string[] => (text ? text.split(',') : []);

/**
 * The view and filters travel in the URL, which the shell keeps per tab: coming back from a
 * detail page opened in a popup finds the map where it was left. Anything unreadable is dropped.
 */
function readUrl(params: URLSearchParams): { place: MapPlace | null; filters: Filters; outages: boolean } {
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
    outages: params.get(OUTAGES_PARAM) === '1',
  };
}

function writeUrl(place: MapPlace | null, filters: Filters, outages: boolean): URLSearchParams {
  const params = new URLSearchParams();
  if (place) {
    params.set('lat', place.lat.toFixed(5));
    params.set('lng', place.lng.toFixed(5));
    params.set('zoom', String(place.zoom));
  }
  if (filters.gridId) params.set('gridId', filters.gridId);
  if (filters.kinds.length) params.set('kinds', filters.kinds.join(','));
  if (filters.meterStatus.length) params.set('meterStatus', filters.meterStatus.join(','));
  if (outages) params.set(OUTAGES_PARAM, '1');
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
  const [outages, setOutages] = useState(initial.outages);
  const [view, setView] = useState<{ viewport: Viewport; place: MapPlace } | null>(null);
  const [selected, setSelected] = useState<ShownPoint | null>(null);
  const [mapReady, setMapReady] = useState(false);
  /** Why the map does not show what was asked for: not on the map, or not found. */
  const [notice, setNotice] = useState<string | null>(null);
  // The URL's focus goes as soon as the map reports its view; the record asked for stays until shown,
  // and the same record asked for again is shown again.
  const focusKey = params.get(FOCUS_PARAM);
  const [focus, setFocus] = useState<{ target: { kind: LocatableKind; id: string }; seq: number } | null>(null);
  useEffect(() => {
    const target = readFocus(focusKey);
    if (target) setFocus((current) => ({ target, seq: (current?.seq ?? 0) + 1 }));
  }, [focusKey]);
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
    setMapReady(true);
    return () => {
      clearTimeout(settle);
      created.destroy();
      map.current = null;
      setMapReady(false);
    };
  }, [config.data]);

  /** Moves to a found record and opens its popup, or says it is not on the map. */
  const show = (found: GisFound) => {
    if (found.placement === null || found.lat === null || found.lng === null) {
      setSelected(null);
      setNotice(t('liveState.notOnMap', { label: found.label }));
      return;
    }
    setNotice(null);
    map.current?.focus({ lat: found.lat, lng: found.lng, zoom: Math.max(FOCUS_ZOOM, place.current?.zoom ?? 0) });
    setSelected(pointOf(found));
  };

  const located = useQuery({
    queryKey: ['gis', 'locate', focus?.target],
    queryFn: focus ? ({ signal }) => callApi(gisFindApi.locate, focus.target, { signal }) : skipToken,
    retry: false,
  });
  const shownFocus = useRef(0);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once per record asked for, when the map is there
  useEffect(() => {
    if (!focus || !mapReady || shownFocus.current === focus.seq) return;
    if (located.error) {
      shownFocus.current = focus.seq;
      setNotice(errorText(t, located.error));
    }
    if (!located.data) return;
    shownFocus.current = focus.seq;
    if (located.data.target) show(located.data.target);
    else setNotice(t('liveState.notOnMap', { label: located.data.label }));
  }, [focus, located.data, located.error, mapReady]);

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

  const search = view && writeUrl(view.place, filters, outages).toString();
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
        <Form.Item>
          <GisSearch onChoose={show} />
        </Form.Item>
        {FILTER_FIELDS.map((field) => (
          <Form.Item key={field.key} name={field.key} label={t(field.label)}>
            <FieldInput field={field} mode="filter" />
          </Form.Item>
        ))}
        <Form.Item label={t('outage.layer')}>
          <Switch checked={outages} onChange={setOutages} data-testid="outage-layer-toggle" />
        </Form.Item>
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
            <Flex vertical align="center" gap={4}>
              <ViewStatus answer={points.data} fetching={points.isFetching} error={points.error} />
              {(filters.kinds.length === 0 || filters.kinds.includes('meter')) && (
                <GisUnplacedMeters
                  filters={{
                    gridId: filters.gridId,
                    meterStatus: filters.meterStatus.length ? filters.meterStatus : undefined,
                  }}
                  onShow={show}
                />
              )}
            </Flex>
          </Card>
        )}
        {notice !== null && (
          <Alert
            style={{ ...OVERLAY, top: 70, left: '50%', transform: 'translateX(-50%)' }}
            type="warning"
            showIcon
            closable={{ onClose: () => setNotice(null) }}
            data-testid="gis-not-on-map"
            title={notice}
          />
        )}
        {config.data && outages && (
          <Card
            size="small"
            style={{ ...OVERLAY, top: 10, right: 10, width: 360, maxHeight: 'calc(100% - 20px)', overflowY: 'auto' }}
          >
            <OutageLayer
              map={mapReady ? map.current : null}
              viewport={view?.viewport ?? null}
              gridId={filters.gridId}
              onFocus={(at) => map.current?.focus(at)}
            />
          </Card>
        )}
        {config.data && (
          <Card size="small" style={{ ...OVERLAY, bottom: 24, left: 10, maxWidth: 260, opacity: 0.95 }}>
            <GisLegend outages={outages} />
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
