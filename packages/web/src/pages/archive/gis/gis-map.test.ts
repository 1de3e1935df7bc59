import type { GisAnswer, GisConfig, GisPoint } from '@meterdesk/contracts';
import { fireEvent } from '@testing-library/react';
import L from 'leaflet';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLeafletView, type MapView, viewportOf } from './gis-map';
import { DARK_METER_STYLE, METER_STATUS_COLORS, PROTECTED_STYLE } from './gis-style';

/*
 * Leaflet runs in happy-dom on a map of no size: enough to see what it puts in the page and how it
 * answers clicks. Where the markers land on screen is the e2e journey's part, in Chromium.
 */
const CONFIG: GisConfig = {
  tileUrl: 'https://tiles.example/{z}/{x}/{y}.png',
  attribution: '© tiles',
  center: { lat: 24.6, lng: 46.6 },
  zoom: 12,
};
const id = (n: number) => n.toString(16).padStart(32, 'd');
const meter: GisPoint = { kind: 'meter', id: id(1), lat: 24.61, lng: 46.61, label: 'M-1', status: 3 };
const consumer: GisPoint = { kind: 'consumer', id: id(2), lat: 24.61, lng: 46.61, label: 'C-1', status: 1 };
const ANSWER: GisAnswer = {
  clusters: [{ kind: 'meter', lat: 24.7, lng: 46.7, count: 40 }],
  // The meter first: the consumer at its address must still be drawn beneath it.
  points: [meter, consumer],
  total: 42,
};

let opened: MapView | undefined;
afterEach(() => {
  opened?.destroy();
  opened = undefined;
  document.body.innerHTML = '';
});

function open(config: GisConfig = CONFIG) {
  const container = document.createElement('div');
  document.body.append(container);
  const events = { onViewport: vi.fn(), onPoint: vi.fn(), onPopupClosed: vi.fn(), onTiles: vi.fn() };
  opened = createLeafletView(container, config, null, events);
  return { container, events, view: opened };
}

const byTestId = (container: HTMLElement, testId: string) => {
  const element = container.querySelector(`[data-testid="${testId}"]`);
  if (!element) throw new Error(`nothing with data-testid ${testId}`);
  return element as HTMLElement;
};

describe('Leaflet map view', () => {
  it('moves to a found record as a user’s move would, reporting the new view', () => {
    const { events, view } = open();
    view.focus({ lat: 24.75, lng: 46.55, zoom: 17 });
    expect(events.onViewport.mock.calls.at(-1)?.[1]).toEqual({ lat: 24.75, lng: 46.55, zoom: 17 });
  });

  it('reports the view it opens on, and draws clusters with their count and points by kind and status', () => {
    const { container, events, view } = open();
    expect(events.onViewport).toHaveBeenCalledTimes(1);
    expect(events.onViewport.mock.calls[0]?.[1]).toEqual({ lat: 24.6, lng: 46.6, zoom: 12 });

    view.draw(ANSWER, (cluster) => `${cluster.count} meters`);
    const cluster = byTestId(container, 'gis-cluster-meter');
    expect(cluster.textContent).toBe('40');
    expect(cluster.getAttribute('title')).toBe('40 meters');
    const meterPath = byTestId(container, 'gis-point-meter-M-1');
    const consumerPath = byTestId(container, 'gis-point-consumer-C-1');
    expect(meterPath.getAttribute('fill')).toBe(METER_STATUS_COLORS[3]);
    expect(consumerPath.getAttribute('fill')).toBe(PROTECTED_STYLE.fillColor);
    expect(consumerPath.getAttribute('stroke-width')).toBe(String(PROTECTED_STYLE.weight));
    // Drawn later is on top: the consumer's disc lies under its meter, so both stay clickable.
    expect(consumerPath.compareDocumentPosition(meterPath) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    view.draw({ clusters: [], points: [meter], total: 1 }, () => '');
    expect(container.querySelector('[data-testid="gis-cluster-meter"]')).toBeNull();
    expect(container.querySelectorAll('[data-testid^="gis-point-"]')).toHaveLength(1);
  });

  it('hands a clicked point to the page, shows its popup content and zooms into a clicked cluster', () => {
    const { container, events, view } = open();
    view.draw(ANSWER, () => '');

    fireEvent.click(byTestId(container, 'gis-point-meter-M-1'));
    expect(events.onPoint).toHaveBeenCalledWith(meter);
    const content = document.createElement('div');
    content.textContent = 'M-1 popup';
    view.openPopup(meter, content);
    expect(container.querySelector('.leaflet-popup-content')?.textContent).toBe('M-1 popup');
    view.closePopup();
    expect(events.onPopupClosed).toHaveBeenCalled();

    fireEvent.click(byTestId(container, 'gis-cluster-meter'));
    expect(events.onViewport.mock.calls.at(-1)?.[1]).toMatchObject({ lat: 24.7, lng: 46.7, zoom: 14 });
  });

  it('draws the outage layer above every point: dark meters, their clusters and areas; and takes it away', () => {
    const { container, events, view } = open();
    view.draw(ANSWER, () => '');
    view.drawOutages({
      points: {
        points: [{ id: id(9), lat: 24.62, lng: 46.62, label: 'M-9', since: '2024-05-01T10:00:00.000Z' }],
        clusters: [{ lat: 24.7, lng: 46.7, count: 12 }],
        total: 13,
        unplaced: 0,
      },
      areas: [
        { gridId: id(5), lat: 24.62, lng: 46.62, radius: 300, dark: true, title: 'T1' },
        { gridId: id(6), lat: 24.5, lng: 46.5, radius: 150, dark: false, title: 'T2' },
      ],
      pointTitle: (point) => `${point.label} without supply`,
      clusterTitle: (count) => `${count} dark meters`,
    });
    const dark = byTestId(container, 'outage-point-M-9');
    expect(dark.getAttribute('fill')).toBe(DARK_METER_STYLE.fillColor);
    expect(dark.getAttribute('stroke')).toBe(DARK_METER_STYLE.color);
    const paneOf = (element: HTMLElement) => Number((element.closest('.leaflet-pane') as HTMLElement).style.zIndex);
    expect(paneOf(dark)).toBeGreaterThan(paneOf(byTestId(container, 'gis-point-meter-M-1')));
    expect(byTestId(container, `outage-area-${id(5)}`).getAttribute('data-dark')).toBe('true');
    expect(byTestId(container, `outage-area-${id(6)}`).getAttribute('data-dark')).toBe('false');
    const cluster = byTestId(container, 'outage-cluster');
    expect(cluster.textContent).toBe('12');
    expect(cluster.getAttribute('title')).toBe('12 dark meters');
    fireEvent.click(cluster);
    expect(events.onViewport.mock.calls.at(-1)?.[1]).toMatchObject({ lat: 24.7, lng: 46.7, zoom: 14 });

    view.drawOutages(null);
    expect(container.querySelectorAll('[data-testid^="outage-"]')).toHaveLength(0);
    // The other points stay.
    expect(container.querySelectorAll('[data-testid^="gis-point-"]')).toHaveLength(2);
  });

  it('keeps drawing when the tile server cannot be reached, and draws no tiles without one', () => {
    const { container, events, view } = open();
    const tile = container.querySelector('img.leaflet-tile');
    expect(tile?.getAttribute('src')).toMatch(/^https:\/\/tiles\.example\/12\//);
    fireEvent.error(tile as Element);
    expect(events.onTiles).toHaveBeenCalledWith(false);
    view.draw(ANSWER, () => '');
    expect(container.querySelectorAll('[data-testid^="gis-point-"]')).toHaveLength(2);
    view.destroy();
    opened = undefined;

    const plain = open({ ...CONFIG, tileUrl: null });
    expect(plain.container.querySelector('img.leaflet-tile')).toBeNull();
    plain.view.draw(ANSWER, () => '');
    expect(plain.container.querySelectorAll('[data-testid^="gis-point-"]')).toHaveLength(2);
  });

  it('asks for a viewport the server accepts however far the map is panned or zoomed out', () => {
    const bounds = (south: number, west: number, north: number, east: number) =>
      L.latLngBounds([south, west], [north, east]);
    expect(viewportOf(bounds(24.4, 46.3, 24.8, 46.9), 12.4)).toEqual({
      west: 46.3,
      south: 24.4,
      east: 46.9,
      north: 24.8,
      zoom: 12,
    });
    // More than one world across: every longitude, and no latitude beyond the poles.
    expect(viewportOf(bounds(-120, -400, 120, 400), 1)).toEqual({
      west: -180,
      south: -90,
      east: 180,
      north: 90,
      zoom: 1,
    });
    // Across the antimeridian: west of the view lies east of its east edge.
    expect(viewportOf(bounds(-10, 170, 10, 190), 5)).toMatchObject({ west: 170, east: -170 });
    // A copy of the world to the east is the same place.
    expect(viewportOf(bounds(24.4, 406.3, 24.8, 406.9), 12)).toMatchObject({
      west: expect.closeTo(46.3, 9),
      east: expect.closeTo(46.9, 9),
    });
  });
});
