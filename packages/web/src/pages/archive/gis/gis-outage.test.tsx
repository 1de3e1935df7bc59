import {
  GIS_RES,
  type GisConfig,
  gisApi,
  gisFindApi,
  gridApi,
  type LiveDeviceChange,
  OUTAGE_RES,
  type OutageNode,
  type OutagePoints,
  type OutageSummary,
  outageApi,
} from '@meterdesk/contracts';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { fail, file, ok, type StubAnswer, stubApi } from '@/test/api-stub';
import { followers } from '@/test/fake-broker';
import { gridNode } from '@/test/grid-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import type { MapPlace, MapViewEvents, OutageDrawing, Viewport } from './gis-map';

/*
 * The outage layer of the GIS page, against a recording stand-in for the map (as gis.page.test.tsx)
 * and the broker played by the test: what the panel says, what it draws, what it asks and when.
 */
interface FakeView {
  events: MapViewEvents;
  outages: (OutageDrawing | null)[];
  focuses: MapPlace[];
}
const views = vi.hoisted(() => [] as FakeView[]);
vi.mock('./gis-map', () => ({
  createLeafletView: (_container: HTMLElement, _config: GisConfig, _place: MapPlace | null, events: MapViewEvents) => {
    const view: FakeView = { events, outages: [], focuses: [] };
    views.push(view);
    return {
      draw: () => undefined,
      drawOutages: (drawing: OutageDrawing | null) => view.outages.push(drawing),
      openPopup: () => undefined,
      closePopup: () => undefined,
      focus: (at: MapPlace) => view.focuses.push(at),
      destroy: () => undefined,
    };
  },
}));
vi.mock('@/app/live/broker-topics', () => import('@/test/fake-broker'));

const id = (n: number) => n.toString(16).padStart(32, 'e');
const [REGION, FEEDER, T1, T2] = [id(1), id(2), id(3), id(4)];
const CONFIG: GisConfig = { tileUrl: null, attribution: '', center: { lat: 24.6, lng: 46.6 }, zoom: 12 };
const VIEW: Viewport = { west: 46.3, south: 24.4, east: 46.9, north: 24.8, zoom: 12 };
const SINCE = '2024-05-01T10:00:00.000Z';

const outageNode = (fields: Pick<OutageNode, 'gridId' | 'gridName'> & Partial<OutageNode>): OutageNode => ({
  gridCode: fields.gridName,
  gridType: 3,
  parentId: FEEDER,
  depth: 1,
  ownMeters: 0,
  ownDarkMeters: 0,
  darkMeters: 0,
  darkConsumers: 0,
  darkDcus: 0,
  areas: 1,
  darkAreas: 0,
  dark: false,
  since: SINCE,
  center: null,
  ...fields,
});
/** A feeder with one transformer area wholly dark and another partly. */
const SUMMARY: OutageSummary = {
  darkMeters: 27,
  darkConsumers: 26,
  darkDcus: 1,
  darkAreas: 1,
  affectedAreas: 2,
  since: SINCE,
  nodes: [
    outageNode({
      gridId: FEEDER,
      gridName: 'Feeder F1',
      gridType: 2,
      parentId: null,
      depth: 0,
      darkMeters: 27,
      darkConsumers: 26,
      darkDcus: 1,
      areas: 10,
      darkAreas: 1,
    }),
    outageNode({
      gridId: T1,
      gridName: 'Transformer T1',
      ownMeters: 25,
      ownDarkMeters: 25,
      darkMeters: 25,
      darkConsumers: 24,
      darkDcus: 1,
      darkAreas: 1,
      dark: true,
      center: { lat: 24.61, lng: 46.61, radius: 600 },
    }),
    outageNode({
      gridId: T2,
      gridName: 'Transformer T2',
      ownMeters: 20,
      ownDarkMeters: 2,
      darkMeters: 2,
      darkConsumers: 2,
      since: '2024-05-01T11:00:00.000Z',
    }),
  ],
};
const NONE: OutageSummary = {
  darkMeters: 0,
  darkConsumers: 0,
  darkDcus: 0,
  darkAreas: 0,
  affectedAreas: 0,
  since: null,
  nodes: [],
};
const POINTS: OutagePoints = {
  points: [{ id: id(20), lat: 24.62, lng: 46.62, label: 'M-20', since: SINCE }],
  clusters: [{ lat: 24.61, lng: 46.61, count: 24 }],
  total: 25,
  unplaced: 2,
};
const darkMeter = (n: number) => ({
  meterId: id(100 + n),
  devAddr: `2104000100${String(n).padStart(2, '0')}`,
  gridId: T1,
  gridName: 'Transformer T1',
  dcuNo: 'DCU-1',
  consumerCode: `C${n}`,
  consumerName: `Consumer ${n}`,
  darkSince: SINCE,
});

type Handler = (body: Record<string, unknown>) => StubAnswer | Promise<StubAnswer>;

function openGis({
  uris = [GIS_RES],
  entry = `${GIS_RES}?outages=1`,
  summary = (() => ok(SUMMARY)) as Handler,
  more = {} as Record<string, Handler>,
} = {}) {
  views.length = 0;
  followers.length = 0;
  const api = stubApi({
    [gisApi.config.path]: () => ok(CONFIG),
    [gisApi.points.path]: () => ok({ clusters: [], points: [], total: 0 }),
    [gisFindApi.unplaced.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
    [gridApi.tree.path]: () =>
      ok([
        gridNode(REGION, 'Central Region', '0', [
          gridNode(FEEDER, 'Feeder F1', REGION, [gridNode(T1, 'Transformer T1', FEEDER)]),
        ]),
      ]),
    [outageApi.summary.path]: summary,
    [outageApi.points.path]: () => ok(POINTS),
    ...more,
  });
  return { api, ...renderInShell(permittedTree(uris), entry) };
}

async function theView(): Promise<FakeView> {
  await waitFor(() => expect(views.length).toBeGreaterThan(0));
  const view = views.at(-1) as FakeView;
  act(() => view.events.onViewport(VIEW, { lat: 24.6, lng: 46.6, zoom: 12 }));
  return view;
}

/** The confirmation's OK: the last asked (an earlier question's dialog may still be closing in the page). */
const lastConfirm = async () => (await screen.findAllByTestId('confirm-ok')).at(-1) as HTMLElement;

const message = (changes: Pick<LiveDeviceChange, 'kind' | 'change'>[], omitted = 0) =>
  JSON.stringify({
    gridId: REGION,
    changes: changes.map((c, n) => ({ ...c, id: id(200 + n), key: `K${n}`, gridId: T1, at: SINCE })),
    omitted,
  });

describe('the GIS outage layer', () => {
  it('is off until switched on; then rolls the outage up the grid tree and draws the dark meters in view', async () => {
    const { api, router } = openGis({ entry: GIS_RES });
    const user = userEvent.setup();
    const view = await theView();
    expect(screen.queryByTestId('outage-panel')).toBeNull();
    expect(api.callsTo(outageApi.summary.path)).toHaveLength(0);

    await user.click(screen.getByTestId('outage-layer-toggle'));
    const panel = await screen.findByTestId('outage-panel');
    await waitFor(() => expect(within(panel).getByTestId('outage-totals')).toBeTruthy());
    expect(within(panel).getByTestId('outage-totals').textContent).toContain(
      '27 meters and 26 consumers dark since 2024-05-01',
    );
    expect(panel.textContent).toContain('1 of 2 affected transformer areas wholly dark');
    expect(panel.textContent).toContain('1 DCU without supply');
    const t1 = screen.getByTestId(`outage-node-${T1}`);
    expect(t1.getAttribute('data-dark')).toBe('true');
    expect(t1.textContent).toContain('Dark');
    expect(t1.textContent).toContain('25 of 25 meters · 24 consumers · 1 DCU');
    const t2 = screen.getByTestId(`outage-node-${T2}`);
    expect(t2.getAttribute('data-dark')).toBe('false');
    expect(t2.textContent).toContain('Partly dark');
    expect(screen.getByTestId(`outage-node-${FEEDER}`).textContent).toContain('27 meters · 1 of 10 areas dark');
    // Two dark meters have no position: the panel says so, as the map cannot show them.
    expect((await screen.findByTestId('outage-unplaced')).textContent).toContain('2 dark meters have no position');
    expect(api.callsTo(outageApi.points.path).at(-1)?.body).toEqual(VIEW);

    // Drawn over the map: the view's dark meters and the area of the node with positions.
    await waitFor(() => expect(view.outages.at(-1)?.points).toEqual(POINTS));
    const drawing = view.outages.at(-1) as OutageDrawing;
    expect(drawing.areas).toEqual([
      { gridId: T1, lat: 24.61, lng: 46.61, radius: 600, dark: true, title: 'Transformer T1' },
    ]);
    expect(drawing.clusterTitle(24)).toBe('24 dark meters: click to zoom in');
    expect(screen.getByTestId('gis-legend-outage-meter').textContent).toBe('Meter without supply');
    await waitFor(() => expect(router.state.location.search).toContain('outages=1'));

    // Show on the map moves there, close enough to see the area whole.
    await user.click(screen.getByTestId(`outage-show-${T1}`));
    expect(view.focuses.at(-1)).toEqual({ lat: 24.61, lng: 46.61, zoom: 14 });

    await user.click(screen.getByTestId('outage-layer-toggle'));
    await waitFor(() => expect(screen.queryByTestId('outage-panel')).toBeNull());
    expect(view.outages.at(-1)).toBeNull();
    expect(screen.queryByTestId('gis-legend-outage-meter')).toBeNull();
  });

  it('reads again as soon as a device under the filter’s node loses or regains supply, not for a link change', async () => {
    let summary = NONE;
    const { api } = openGis({ entry: `${GIS_RES}?outages=1&gridId=${FEEDER}`, summary: () => ok(summary) });
    await theView();
    expect(await screen.findByTestId('outage-none')).toBeTruthy();
    await waitFor(() => expect(followers.length).toBeGreaterThan(0));
    const follower = followers.at(-1)!;
    // The filter's node, whose subtree the feed carries.
    expect(follower.topics).toEqual([`live/grid/${FEEDER}/devices`]);
    expect(api.callsTo(outageApi.summary.path).at(-1)?.body).toEqual({ gridId: FEEDER });
    expect(screen.getByTestId('outage-live').textContent).toBe('Refreshed every 30 s');
    act(() => follower.handlers.onLive(true));
    expect(screen.getByTestId('outage-live').textContent).toBe('Live');
    await waitFor(() => expect(api.callsTo(outageApi.points.path).length).toBeGreaterThan(0));
    await waitFor(() => expect(screen.getByTestId('outage-refresh').querySelector('.ant-btn-loading-icon')).toBeNull());
    const summaries = api.callsTo(outageApi.summary.path).length;
    const points = api.callsTo(outageApi.points.path).length;

    act(() => follower.handlers.onMessage(follower.topics[0]!, message([{ kind: 'meter', change: 'offline' }])));
    await act(() => new Promise((resolve) => setTimeout(resolve, 0)));
    expect(api.callsTo(outageApi.summary.path)).toHaveLength(summaries);

    summary = SUMMARY;
    act(() =>
      follower.handlers.onMessage(
        follower.topics[0]!,
        message([
          { kind: 'dcu', change: 'powerDown' },
          { kind: 'meter', change: 'powerDown' },
        ]),
      ),
    );
    await waitFor(() => expect(screen.getByTestId(`outage-node-${T1}`).getAttribute('data-dark')).toBe('true'));
    expect(api.callsTo(outageApi.summary.path)).toHaveLength(summaries + 1);
    expect(api.callsTo(outageApi.points.path).length).toBeGreaterThan(points);
  });

  it('lists the chosen node’s dark meters a page at a time and exports them as xlsx and PDF', async () => {
    const { api } = openGis({
      uris: [GIS_RES, OUTAGE_RES.export],
      more: {
        [outageApi.meters.path]: (body) =>
          ok({
            list: body.curPage === 1 ? [darkMeter(1), darkMeter(2)] : [darkMeter(11)],
            total: 11,
            curPage: body.curPage,
            pageSize: 10,
          }),
        [outageApi.export.path]: (body) => file('x', 'application/octet-stream', `dark.${String(body.format)}`),
      },
    });
    const user = userEvent.setup();
    await theView();
    await user.click(await screen.findByTestId(`outage-choose-${T1}`));
    expect(screen.getByTestId('outage-dark-meters-open').textContent).toBe('Dark meters (25)');
    await user.click(screen.getByTestId('outage-dark-meters-open'));
    const list = await screen.findByTestId('outage-dark-meters');
    expect(await within(list).findByTestId('outage-meter-210400010001')).toBeTruthy();
    expect(within(list).getByTestId('outage-meter-210400010001').textContent).toContain('Consumer 1');
    expect(screen.getByText('Dark meters of Transformer T1')).toBeTruthy();
    expect(api.callsTo(outageApi.meters.path).at(-1)?.body).toEqual({ gridId: T1, curPage: 1, pageSize: 10 });
    await user.click(document.querySelector('.ant-pagination-item-2') as HTMLElement);
    expect(await within(list).findByTestId('outage-meter-210400010011')).toBeTruthy();
    expect(api.callsTo(outageApi.meters.path).at(-1)?.body).toEqual({ gridId: T1, curPage: 2, pageSize: 10 });

    URL.createObjectURL = vi.fn(() => 'blob:dark');
    URL.revokeObjectURL = vi.fn();
    await user.click(screen.getByTestId('outage-export-xlsx'));
    await user.click(screen.getByTestId('outage-export-pdf'));
    await waitFor(() =>
      expect(api.callsTo(outageApi.export.path).map((call) => call.body)).toEqual([
        { gridId: T1, format: 'xlsx' },
        { gridId: T1, format: 'pdf' },
      ]),
    );
  });

  it('offers no export and no simulator knob to a user without them', async () => {
    openGis({ more: { [outageApi.meters.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }) } });
    const user = userEvent.setup();
    await theView();
    await user.click(await screen.findByTestId('outage-dark-meters-open'));
    await screen.findByTestId('outage-dark-meters');
    expect(screen.queryByTestId('outage-export-xlsx')).toBeNull();
    expect(screen.queryByTestId('outage-blackout')).toBeNull();
  });

  it('blacks out the filter’s node in the simulator once confirmed, and says plainly when no simulator runs', async () => {
    let running = true;
    const { api } = openGis({
      uris: [GIS_RES, OUTAGE_RES.simulate],
      entry: `${GIS_RES}?outages=1&gridId=${T1}`,
      summary: () => ok(NONE),
      more: {
        [outageApi.simulate.path]: () => (running ? ok({ meters: 25, dcus: 1 }) : fail(409, 'simulatorNotRunning')),
      },
    });
    const user = userEvent.setup();
    await theView();
    // No dark meter yet: the node's name comes from the grid tree.
    await waitFor(() =>
      expect(screen.getByTestId('outage-simulate-target').textContent).toBe('Grid node: Transformer T1'),
    );

    // A demo action that asks first: cancelled, nothing is told.
    await user.click(screen.getByTestId('outage-blackout'));
    expect(await screen.findAllByText('Black out Transformer T1 in the device simulator?')).not.toHaveLength(0);
    expect(screen.getByText(/Real devices are not touched/)).toBeTruthy();
    await user.click(screen.getByTestId('confirm-cancel'));
    expect(api.callsTo(outageApi.simulate.path)).toHaveLength(0);

    await user.click(screen.getByTestId('outage-blackout'));
    await user.click(await lastConfirm());
    expect(await screen.findByText('The simulator was told: 25 meters and 1 DCUs')).toBeTruthy();
    await waitFor(() =>
      expect(screen.getByTestId('outage-blackout').querySelector('.ant-btn-loading-icon')).toBeNull(),
    );
    expect(api.callsTo(outageApi.simulate.path).map((call) => call.body)).toEqual([{ gridId: T1, powered: false }]);

    running = false;
    await user.click(screen.getByTestId('outage-restore'));
    expect(
      await screen.findAllByText('Restore the supply of Transformer T1 in the device simulator?'),
    ).not.toHaveLength(0);
    await user.click(await lastConfirm());
    expect((await screen.findByTestId('outage-simulate-error')).textContent).toContain(
      'The device simulator is not running on this server',
    );
    expect(api.callsTo(outageApi.simulate.path).at(-1)?.body).toEqual({ gridId: T1, powered: true });
  });

  it('acts on a node chosen in the panel, and on none without a choice; in Chinese', async () => {
    applyLanguage('zh');
    const { api } = openGis({
      uris: [GIS_RES, OUTAGE_RES.simulate],
      more: { [outageApi.simulate.path]: () => ok({ meters: 2, dcus: 0 }) },
    });
    const user = userEvent.setup();
    await theView();
    expect((await screen.findByTestId('outage-simulate-target')).textContent).toBe(
      '请在上方筛选中选择电网节点，或在列表中选择一个节点',
    );
    expect(screen.getByTestId('outage-blackout').hasAttribute('disabled')).toBe(true);
    expect(screen.getByTestId(`outage-node-${T1}`).textContent).toContain('停电');
    expect(screen.getByTestId(`outage-node-${T2}`).textContent).toContain('部分停电');

    await user.click(screen.getByTestId(`outage-choose-${T2}`));
    expect(screen.getByTestId('outage-simulate-target').textContent).toBe('电网节点：Transformer T2');
    await user.click(screen.getByTestId('outage-restore'));
    expect(await screen.findAllByText('在设备模拟器中恢复 Transformer T2 的供电？')).not.toHaveLength(0);
    await user.click(await lastConfirm());
    await waitFor(() =>
      expect(api.callsTo(outageApi.simulate.path).map((call) => call.body)).toEqual([{ gridId: T2, powered: true }]),
    );
    // Choosing it again (or Back to all) leaves nothing chosen.
    await user.click(screen.getByTestId('outage-clear-choice'));
    expect(screen.getByTestId('outage-blackout').hasAttribute('disabled')).toBe(true);
  });
});
