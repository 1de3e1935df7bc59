import type { GisAnswer, GisCluster, GisConfig, GisPoint, OutagePoints } from '@meterdesk/contracts';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import './gis.css';
import {
  CLUSTER_OFFSET,
  clusterDiameter,
  DARK_METER_STYLE,
  KIND_COLORS,
  OUTAGE_AREA_COLOR,
  OUTAGE_CLUSTER_COLOR,
  outageAreaFill,
  pointStyle,
} from './gis-style';

/** The part of the world on screen, as the points call takes it. */
export interface Viewport {
  west: number;
  south: number;
  east: number;
  north: number;
  zoom: number;
}

export interface MapPlace {
  lat: number;
  lng: number;
  zoom: number;
}

export interface MapViewEvents {
  /** After every move or zoom (and once when the map opens). */
  onViewport(viewport: Viewport, place: MapPlace): void;
  onPoint(point: GisPoint): void;
  onPopupClosed(): void;
  /** Whether the tile server answers; false until a first tile has loaded and after one failed. */
  onTiles(reachable: boolean): void;
}

/** A grid node's dark meters as an area: the middle of their spread and its radius (metres). */
export interface OutageArea {
  gridId: string;
  lat: number;
  lng: number;
  radius: number;
  /** Every meter of the node dark, not only some. */
  dark: boolean;
  title: string;
}

/** The outage layer: dark meters in view (points and clusters) and the areas they lie in. */
export interface OutageDrawing {
  points: OutagePoints;
  areas: readonly OutageArea[];
  pointTitle: (point: OutagePoints['points'][number]) => string;
  clusterTitle: (count: number) => string;
}

/**
 * What the page asks of the map. Leaflet stays behind it: the page (and its test) deal in
 * viewports, answers and points only.
 */
export interface MapView {
  draw(answer: GisAnswer, clusterTitle: (cluster: GisCluster) => string): void;
  /** Draws the outage layer over everything else, replacing the last; null takes it away. */
  drawOutages(outages: OutageDrawing | null): void;
  /** Opens the popup of `point` showing `content`, which the page renders into. */
  openPopup(point: GisPoint, content: HTMLElement): void;
  /** Moves the map to `place` (a found record), as a user's move would: the viewport is reported. */
  focus(place: MapPlace): void;
  closePopup(): void;
  destroy(): void;
}

export type CreateMapView = (
  container: HTMLElement,
  config: GisConfig,
  place: MapPlace | null,
  events: MapViewEvents,
) => MapView;

const MAX_ZOOM = 19;
/** Clicking a cluster zooms this much closer, where the server splits it into smaller ones. */
const CLUSTER_ZOOM_STEP = 2;

/** A longitude the map reports beyond ±180 (a view panned around the world) brought back into range. */
const wrapLng = (lng: number) => (lng < -180 || lng > 180 ? ((((lng + 180) % 360) + 360) % 360) - 180 : lng);

export function viewportOf(bounds: L.LatLngBounds, zoom: number): Viewport {
  const south = Math.max(-90, bounds.getSouth());
  const north = Math.min(90, bounds.getNorth());
  // Zoomed out past one world, the view holds every longitude; the server reads west > east as a
  // view across the antimeridian.
  const wide = bounds.getEast() - bounds.getWest() >= 360;
  return {
    west: wide ? -180 : wrapLng(bounds.getWest()),
    south,
    east: wide ? 180 : wrapLng(bounds.getEast()),
    north,
    zoom: Math.round(zoom),
  };
}

/** Later is on top: consumers under the meters at their address, DCUs over both. */
const DRAW_ORDER: Record<GisPoint['kind'], number> = { consumer: 0, meter: 1, dcu: 2 };
/** Single points lie above the clusters (Leaflet's marker pane is 600), below tooltips and popups. */
const POINT_PANE = 'gisPoints';
/** Dark meters lie above every other point: the layer is switched on to see them. */
const OUTAGE_PANE = 'gisOutages';

function clusterIcon(count: number, color: string, [dx, dy]: [number, number], className = ''): L.DivIcon {
  const size = clusterDiameter(count);
  const disc = document.createElement('div');
  disc.className = `gis-cluster-disc ${className}`.trim();
  disc.textContent = String(count);
  disc.style.background = color;
  disc.style.width = `${size}px`;
  disc.style.height = `${size}px`;
  return L.divIcon({
    className: 'gis-cluster',
    html: disc,
    iconSize: [size, size],
    iconAnchor: [size / 2 - dx * size, size / 2 - dy * size],
  });
}

/** The map on Leaflet: tiles when configured, the server's clusters and points, one popup. */
export const createLeafletView: CreateMapView = (container, config, place, events) => {
  const map = L.map(container, {
    center: place ? [place.lat, place.lng] : [config.center.lat, config.center.lng],
    zoom: place?.zoom ?? config.zoom,
    minZoom: 2,
    maxZoom: MAX_ZOOM,
    // Panned around the world, the view jumps back to the copy where the points are drawn.
    worldCopyJump: true,
  });
  if (config.tileUrl) {
    let loaded = false;
    L.tileLayer(config.tileUrl, { attribution: config.attribution, maxZoom: MAX_ZOOM })
      .on('tileload', () => {
        if (!loaded) events.onTiles(true);
        loaded = true;
      })
      // A failed tile stays hidden (leaflet.css): the markers lie on the container's plain background.
      .on('tileerror', () => {
        if (!loaded) events.onTiles(false);
      })
      .addTo(map);
  }
  map.createPane(POINT_PANE).style.zIndex = '620';
  map.createPane(OUTAGE_PANE).style.zIndex = '640';
  const drawn = L.layerGroup().addTo(map);
  const outages = L.layerGroup().addTo(map);
  const zoomInto = (lat: number, lng: number) => map.setView([lat, lng], map.getZoom() + CLUSTER_ZOOM_STEP);
  const popup = L.popup({ minWidth: 220, maxWidth: 320 });

  const report = () => {
    const centre = map.getCenter();
    events.onViewport(viewportOf(map.getBounds(), map.getZoom()), {
      lat: centre.lat,
      lng: centre.lng,
      zoom: map.getZoom(),
    });
  };
  map.on('moveend zoomend', report);
  map.on('popupclose', () => events.onPopupClosed());
  // The page's layout (a filter bar wrapping onto two lines) can resize the map without a window resize.
  const resizes = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => map.invalidateSize());
  resizes?.observe(container);
  report();

  return {
    draw(answer, clusterTitle) {
      drawn.clearLayers();
      for (const cluster of answer.clusters) {
        const marker = L.marker([cluster.lat, cluster.lng], {
          icon: clusterIcon(cluster.count, KIND_COLORS[cluster.kind], CLUSTER_OFFSET[cluster.kind]),
          title: clusterTitle(cluster),
          // DCUs above meters above consumers, as in the legend.
          zIndexOffset: { dcu: 300, meter: 200, consumer: 100 }[cluster.kind],
        });
        marker.on('click', () => zoomInto(cluster.lat, cluster.lng));
        marker.addTo(drawn);
        marker.getElement()?.setAttribute('data-testid', `gis-cluster-${cluster.kind}`);
      }
      for (const point of [...answer.points].sort((a, b) => DRAW_ORDER[a.kind] - DRAW_ORDER[b.kind])) {
        const marker = L.circleMarker([point.lat, point.lng], {
          ...pointStyle(point),
          fillOpacity: 0.9,
          pane: POINT_PANE,
        });
        marker.on('click', () => events.onPoint(point));
        marker.addTo(drawn);
        marker.getElement()?.setAttribute('data-testid', `gis-point-${point.kind}-${point.label}`);
      }
    },
    drawOutages(drawing) {
      outages.clearLayers();
      if (!drawing) return;
      for (const area of drawing.areas) {
        const circle = L.circle([area.lat, area.lng], {
          radius: area.radius,
          color: OUTAGE_AREA_COLOR,
          weight: 2,
          dashArray: '6 4',
          fillColor: OUTAGE_CLUSTER_COLOR,
          fillOpacity: outageAreaFill(area.dark),
          // The points inside stay clickable.
          interactive: false,
        });
        circle.addTo(outages);
        circle.getElement()?.setAttribute('data-testid', `outage-area-${area.gridId}`);
        circle.getElement()?.setAttribute('data-dark', String(area.dark));
      }
      for (const cluster of drawing.points.clusters) {
        const marker = L.marker([cluster.lat, cluster.lng], {
          icon: clusterIcon(cluster.count, OUTAGE_CLUSTER_COLOR, [0, 0], 'gis-outage-cluster'),
          title: drawing.clusterTitle(cluster.count),
          pane: OUTAGE_PANE,
        });
        marker.on('click', () => zoomInto(cluster.lat, cluster.lng));
        marker.addTo(outages);
        marker.getElement()?.setAttribute('data-testid', 'outage-cluster');
      }
      for (const point of drawing.points.points) {
        const marker = L.circleMarker([point.lat, point.lng], {
          ...DARK_METER_STYLE,
          fillOpacity: 0.95,
          pane: OUTAGE_PANE,
        });
        marker.bindTooltip(drawing.pointTitle(point));
        marker.addTo(outages);
        marker.getElement()?.setAttribute('data-testid', `outage-point-${point.label}`);
      }
    },
    openPopup(point, content) {
      popup.setLatLng([point.lat, point.lng]).setContent(content).openOn(map);
    },
    closePopup() {
      map.closePopup(popup);
    },
    focus(place) {
      map.setView([place.lat, place.lng], place.zoom);
    },
    destroy() {
      resizes?.disconnect();
      map.remove();
    },
  };
};
