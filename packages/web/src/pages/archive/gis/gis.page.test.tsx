import {
  GIS_RES,
  type GisAnswer,
  type GisConfig,
  type GisFound,
  type GisPoint,
  type GridNode,
  gisApi,
  gisFindApi,
  gridApi,
  meterEntity,
} from '@meterdesk/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { ok, type StubAnswer, stubApi } from '@/test/api-stub';
import { gridNode } from '@/test/grid-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import type { MapPlace, MapViewEvents, Viewport } from './gis-map';

/*
 * The page meets a recording stand-in for the map view (the seam it talks to), so a test can move
 * the map and click points at will; gis-map.test.ts covers the Leaflet side, the e2e journey both.
 */
interface FakeView {
  container: HTMLElement;
  config: GisConfig;
  place: MapPlace | null;
  events: MapViewEvents;
  draws: GisAnswer[];
  popups: { point: GisPoint; content: HTMLElement }[];
  focuses: MapPlace[];
  destroyed: boolean;
}
const views = vi.hoisted(() => [] as FakeView[]);
vi.mock('./gis-map', () => ({
  createLeafletView: (container: HTMLElement, config: GisConfig, place: MapPlace | null, events: MapViewEvents) => {
    const view: FakeView = { container, config, place, events, draws: [], popups: [], focuses: [], destroyed: false };
    views.push(view);
    return {
      draw: (answer: GisAnswer) => view.draws.push(answer),
      openPopup: (point: GisPoint, content: HTMLElement) => view.popups.push({ point, content }),
      closePopup: () => undefined,
      focus: (at: MapPlace) => view.focuses.push(at),
      destroy: () => {
        view.destroyed = true;
      },
    };
  },
}));

const id = (n: number) => n.toString(16).padStart(32, 'c');
const CONFIG: GisConfig = {
  tileUrl: 'https://tiles.example/{z}/{x}/{y}.png',
  attribution: '© tiles',
  center: { lat: 24.6, lng: 46.6 },
  zoom: 12,
};
const VIEW: Viewport = { west: 46.3, south: 24.4, east: 46.9, north: 24.8, zoom: 12 };
const PLACE: MapPlace = { lat: 24.6, lng: 46.6, zoom: 12 };
const meterPoint: GisPoint = { kind: 'meter', id: id(1), lat: 24.61, lng: 46.61, label: '210400010028', status: 2 };
const protectedConsumer: GisPoint = {
  kind: 'consumer',
  id: id(2),
  lat: 24.62,
  lng: 46.62,
  label: 'C100000027',
  status: 1,
};
const ANSWER: GisAnswer = {
  clusters: [{ kind: 'meter', lat: 24.7, lng: 46.7, count: 40 }],
  points: [meterPoint, protectedConsumer],
  total: 42,
};
const gridNodeOf = (n: number, gridName: string, parentId: string, children: GridNode[] = []) =>
  gridNode(id(n), gridName, parentId, children);

function openGis(
  points: (body: Record<string, unknown>) => StubAnswer | Promise<StubAnswer>,
  {
    uris = [GIS_RES],
    config = CONFIG,
    entry = GIS_RES,
    more = {} as Record<string, (body: Record<string, unknown>) => StubAnswer>,
  } = {},
) {
  views.length = 0;
  const api = stubApi({
    [gisApi.config.path]: () => ok(config),
    [gisApi.points.path]: points,
    [gridApi.tree.path]: () => ok([gridNodeOf(10, 'Central Region', '0', [gridNodeOf(11, 'Feeder F1', id(10))])]),
    [gisFindApi.unplaced.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
    ...more,
  });
  const shell = renderInShell(permittedTree(uris), entry);
  return { api, ...shell };
}

async function theView(): Promise<FakeView> {
  await waitFor(() => expect(views.length).toBeGreaterThan(0));
  return views.at(-1) as FakeView;
}

function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

describe('GIS page', () => {
  it('opens at the configured centre, asks once a burst of moves settles and draws the answer', async () => {
    const { api, router } = openGis(() => ok(ANSWER));
    const view = await theView();
    expect(view.config).toEqual(CONFIG);
    expect(view.place).toBeNull();

    // Each move is its own render, as when Leaflet reports them one by one.
    act(() => view.events.onViewport({ ...VIEW, zoom: 10 }, { ...PLACE, zoom: 10 }));
    act(() => view.events.onViewport({ ...VIEW, zoom: 11 }, { ...PLACE, zoom: 11 }));
    act(() => view.events.onViewport(VIEW, PLACE));
    await waitFor(() => expect(view.draws).toEqual([ANSWER]));
    expect(api.callsTo(gisApi.points.path).map((call) => call.body)).toEqual([
      { ...VIEW, kinds: ['consumer', 'meter', 'dcu'] },
    ]);
    expect(screen.getByTestId('gis-count').textContent).toBe('42 in view');
    // The view travels in the tab's URL, so coming back finds the map where it was.
    await waitFor(() => expect(router.state.location.search).toBe('?lat=24.60000&lng=46.60000&zoom=12'));
  });

  it('drops the question of a view the user has already left', async () => {
    let release: (answer: StubAnswer) => void = () => undefined;
    const late = { ...ANSWER, total: 7 };
    const { api } = openGis((body) =>
      body.zoom === 10 ? new Promise<StubAnswer>((resolve) => (release = resolve)) : ok(ANSWER),
    );
    const view = await theView();

    act(() => view.events.onViewport({ ...VIEW, zoom: 10 }, PLACE));
    await waitFor(() => expect(api.callsTo(gisApi.points.path)).toHaveLength(1));
    expect(screen.getByTestId('gis-loading')).toBeTruthy();
    act(() => view.events.onViewport(VIEW, PLACE));
    await waitFor(() => expect(view.draws).toEqual([ANSWER]));

    const [stale] = api.callsTo(gisApi.points.path);
    expect(stale?.init.signal?.aborted).toBe(true);
    release(ok(late));
    await waitFor(() => expect(screen.getByTestId('gis-count').textContent).toBe('42 in view'));
    expect(view.draws).toEqual([ANSWER]);
  });

  it('asks again with the grid node, kinds and meter statuses picked in the filter bar', async () => {
    const { api } = openGis(() => ok(ANSWER));
    const view = await theView();
    act(() => view.events.onViewport(VIEW, PLACE));
    await waitFor(() => expect(api.callsTo(gisApi.points.path)).toHaveLength(1));
    const user = userEvent.setup();

    fireEvent.mouseDown(within(formItem('field-kinds')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Meters'));
    await waitFor(() => expect(api.callsTo(gisApi.points.path).at(-1)?.body.kinds).toEqual(['meter']));

    fireEvent.mouseDown(within(formItem('field-meterStatus')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Anomaly'));
    await waitFor(() => expect(api.callsTo(gisApi.points.path).at(-1)?.body.meterStatus).toEqual([3]));

    fireEvent.mouseDown(within(formItem('field-gridId')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Central Region'));
    await waitFor(() =>
      expect(api.callsTo(gisApi.points.path).at(-1)?.body).toEqual({
        ...VIEW,
        kinds: ['meter'],
        meterStatus: [3],
        gridId: id(10),
      }),
    );

    await user.click(screen.getByTestId('gis-reset'));
    await waitFor(() =>
      expect(api.callsTo(gisApi.points.path).at(-1)?.body).toEqual({ ...VIEW, kinds: ['consumer', 'meter', 'dcu'] }),
    );
  });

  it('reopens a tab at the view and filters its URL kept', async () => {
    const entry = `${GIS_RES}?lat=24.71&lng=46.52&zoom=15&kinds=meter,bogus&meterStatus=2,9&gridId=${id(11)}`;
    const { api } = openGis(() => ok(ANSWER), { entry });
    const view = await theView();
    expect(view.place).toEqual({ lat: 24.71, lng: 46.52, zoom: 15 });

    act(() => view.events.onViewport(VIEW, PLACE));
    await waitFor(() =>
      expect(api.callsTo(gisApi.points.path)[0]?.body).toEqual({
        ...VIEW,
        kinds: ['meter'],
        meterStatus: [2],
        gridId: id(11),
      }),
    );
  });

  it("says a point's key, kind and status in the popup and opens its detail in the shell", async () => {
    const { router } = openGis(() => ok(ANSWER), { uris: [GIS_RES, `${meterEntity.pagePath}/detail`] });
    const view = await theView();
    const user = userEvent.setup();

    act(() => view.events.onPoint(meterPoint));
    await waitFor(() => expect(view.popups).toHaveLength(1));
    const popup = view.popups[0]?.content as HTMLElement;
    // The popup is opened on content already rendered, so Leaflet measures it as shown.
    expect(within(popup).getByTestId('gis-popup-label').textContent).toBe('210400010028');
    expect(popup.textContent).toContain('Meter');
    expect(popup.textContent).toContain('Activated');

    await user.click(within(popup).getByTestId('gis-popup-detail'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/archiveSetting/meter/detail'));
    expect(router.state.location.search).toBe(`?id=${id(1)}`);
  });

  it('marks a protected consumer and offers no detail link to a user without its page', async () => {
    openGis(() => ok(ANSWER));
    const view = await theView();

    act(() => view.events.onPoint(protectedConsumer));
    await waitFor(() => expect(view.popups).toHaveLength(1));
    const popup = view.popups[0]?.content as HTMLElement;
    expect(within(popup).getByTestId('gis-popup-protected').textContent).toBe('Life support / medical');
    expect(within(popup).queryByTestId('gis-popup-detail')).toBeNull();

    act(() => view.events.onPopupClosed());
    await waitFor(() => expect(popup.textContent).toBe(''));
  });

  it('says when nothing is in view, and when tiles are missing or unreachable', async () => {
    openGis(() => ok({ clusters: [], points: [], total: 0 }));
    const view = await theView();
    act(() => view.events.onViewport(VIEW, PLACE));
    expect((await screen.findByTestId('gis-empty')).textContent).toBe(
      'Nothing in view: move the map, zoom out or change the filters',
    );
    act(() => view.events.onTiles(false));
    expect(await screen.findByText(/Map tiles cannot be reached/)).toBeTruthy();
    act(() => view.events.onTiles(true));
    await waitFor(() => expect(screen.queryByText(/Map tiles cannot be reached/)).toBeNull());
  });

  it('draws on a plain background without a tile server, with the legend in Chinese', async () => {
    applyLanguage('zh');
    openGis(() => ok(ANSWER), { config: { ...CONFIG, tileUrl: null } });
    await theView();
    expect(await screen.findByText('未配置地图瓦片：位置绘制在空白底图上')).toBeTruthy();
    const legend = screen.getByTestId('gis-legend');
    expect(within(legend).getByTestId('gis-legend-meter-3').textContent).toBe('异常');
    expect(within(legend).getByTestId('gis-legend-protected').textContent).toBe('生命保障 / 医疗');
    expect(within(formItem('field-kinds')).getByText('显示')).toBeTruthy();
  });

  describe('finding records', () => {
    const found = (n: number, label: string, more: Partial<GisFound> = {}): GisFound => ({
      kind: 'meter',
      id: id(n),
      label,
      name: '',
      status: 2,
      lat: 24.63,
      lng: 46.63,
      placement: 'own',
      ...more,
    });
    const searching = (list: GisFound[]) => ({ [gisFindApi.search.path]: () => ok({ list, more: false }) });

    it('finds a meter by number as the user types, moves the map there and opens its popup, marked when approximate', async () => {
      const atConsumer = found(3, '210400010029', { placement: 'consumer' });
      const { api } = openGis(() => ok(ANSWER), { more: searching([atConsumer]) });
      const view = await theView();
      const user = userEvent.setup();
      await user.type(screen.getByTestId('gis-search'), '2104');
      await user.click(await screen.findByTestId('gis-search-option-meter-210400010029'));
      // One question once typing paused, not one per key.
      expect(api.callsTo(gisFindApi.search.path).map((call) => call.body)).toEqual([{ keyword: '2104' }]);
      await waitFor(() => expect(view.focuses).toEqual([{ lat: 24.63, lng: 46.63, zoom: 17 }]));
      await waitFor(() => expect(view.popups).toHaveLength(1));
      const popup = view.popups[0]?.content as HTMLElement;
      expect(within(popup).getByTestId('gis-popup-label').textContent).toBe('210400010029');
      expect(within(popup).getByTestId('gis-placement').textContent).toBe("Approximate: at its consumer's position");
    });

    it('says a found meter with no position anywhere is not on the map', async () => {
      openGis(() => ok(ANSWER), {
        more: searching([found(4, '210400010030', { placement: null, lat: null, lng: null })]),
      });
      const view = await theView();
      const user = userEvent.setup();
      await user.type(screen.getByTestId('gis-search'), '30');
      await user.click(await screen.findByTestId('gis-search-option-meter-210400010030'));
      expect((await screen.findByTestId('gis-not-on-map')).textContent).toContain('210400010030 is not on the map');
      expect(view.focuses).toEqual([]);
      expect(view.popups).toEqual([]);
    });

    it('opens centred on the record a detail page names, or says why it cannot', async () => {
      const entry = `${GIS_RES}?focus=poc:${id(5)}`;
      const { api } = openGis(() => ok(ANSWER), {
        entry,
        more: { [gisFindApi.locate.path]: () => ok({ label: 'POC000001', target: found(6, '210400010031') }) },
      });
      const view = await theView();
      // The map reports its view first, which drops the focus from the URL: the record is still shown.
      act(() => view.events.onViewport(VIEW, PLACE));
      await waitFor(() => expect(view.popups).toHaveLength(1));
      expect(api.callsTo(gisFindApi.locate.path).map((call) => call.body)).toEqual([{ kind: 'poc', id: id(5) }]);
      expect(view.focuses).toEqual([{ lat: 24.63, lng: 46.63, zoom: 17 }]);

      openGis(() => ok(ANSWER), {
        entry,
        more: { [gisFindApi.locate.path]: () => ok({ label: 'POC000001', target: null }) },
      });
      expect((await screen.findByTestId('gis-not-on-map')).textContent).toContain('POC000001 is not on the map');
    });

    it('lists the meters without coordinates under the filters, showing one at its approximate place', async () => {
      const list = [found(7, '210400010032', { placement: 'dcu' }), found(8, '210400010033', { placement: null })];
      const { api } = openGis(() => ok(ANSWER), {
        more: { [gisFindApi.unplaced.path]: () => ok({ list, total: 2, curPage: 1, pageSize: 10 }) },
      });
      const view = await theView();
      const user = userEvent.setup();
      await user.click(await screen.findByTestId('gis-unplaced'));
      expect(screen.getByTestId('gis-unplaced').textContent).toBe('2 meters without coordinates');
      const drawer = await screen.findByTestId('gis-unplaced-list');
      expect(
        within(drawer)
          .getAllByTestId('gis-placement')
          .map((tag) => tag.textContent),
      ).toEqual(["Approximate: at its DCU's position", 'Not on the map']);
      await user.click(within(drawer).getByTestId('gis-unplaced-show-210400010032'));
      await waitFor(() => expect(view.focuses).toHaveLength(1));
      expect(api.callsTo(gisFindApi.unplaced.path)[0]?.body).toEqual({ pageSize: 10, curPage: 1 });
    });
  });
});
