import type { GisAnswer, GisCluster, GisConfig, GisPoint } from '@meterdesk/contracts';
import L from 'leaflet';
import 'leaflet/dist/leaflet.css';
import './gis.css';
import { CLUSTER_OFFSET, clusterDiameter, KIND_COLORS, pointStyle } from './gis-style';

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

/**
 * What the page asks of the map. Leaflet stays behind it: the page (and its test) deal in
 * viewports, answers and points only.
 */
export interface MapView {
  draw(answer: GisAnswer, clusterTitle: (cluster: GisCluster) => string): void;
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

function clusterIcon(cluster: GisCluster): L.DivIcon {
  const size = clusterDiameter(cluster.count);
  const [dx, dy] = CLUSTER_OFFSET[cluster.kind];
  const disc = document.createElement('div');
  disc.className = 'gis-cluster-disc';
  disc.textContent = String(cluster.count);
  disc.style.background = KIND_COLORS[cluster.kind];
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
  const drawn = L.layerGroup().addTo(map);
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
          icon: clusterIcon(cluster),
          title: clusterTitle(cluster),
          // DCUs above meters above consumers, as in the legend.
          zIndexOffset: { dcu: 300, meter: 200, consumer: 100 }[cluster.kind],
        });
        marker.on('click', () => map.setView([cluster.lat, cluster.lng], map.getZoom() + CLUSTER_ZOOM_STEP));
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
