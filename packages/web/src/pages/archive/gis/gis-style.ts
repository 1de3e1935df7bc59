import type { GisKind, GisPoint, MeterStatus } from '@meterdesk/contracts';

/** How a single point is drawn; the legend draws its swatches with the same numbers. */
export interface PointStyle {
  radius: number;
  fillColor: string;
  color: string;
  weight: number;
}

/** Clusters and the kinds without a status colour. */
export const KIND_COLORS: Record<GisKind, string> = {
  meter: '#1677ff',
  consumer: '#08979c',
  dcu: '#722ed1',
};

export const METER_STATUS_COLORS: Record<MeterStatus, string> = {
  0: '#8c8c8c',
  1: '#1677ff',
  2: '#52c41a',
  3: '#fa541c',
  4: '#434343',
  5: '#faad14',
};

const WHITE_RING = { color: '#ffffff', weight: 1.5 };

/*
 * A consumer and its meter usually stand at one address: the consumer is the wider disc, drawn
 * first, so the meter shows inside a ring of its consumer's colour and both stay clickable.
 */
export const CONSUMER_STYLE: PointStyle = { radius: 10, fillColor: KIND_COLORS.consumer, ...WHITE_RING };
/** A protected consumer (life support, medical) must catch the eye of whoever plans a disconnection. */
export const PROTECTED_STYLE: PointStyle = { radius: 12, fillColor: '#f5222d', color: '#820014', weight: 3 };
export const DCU_STYLE: PointStyle = { radius: 8, fillColor: KIND_COLORS.dcu, color: '#22075e', weight: 2 };
export const meterStyle = (status: number): PointStyle => ({
  radius: 6,
  fillColor: METER_STATUS_COLORS[status as MeterStatus] ?? KIND_COLORS.meter,
  ...WHITE_RING,
});

export function pointStyle(point: Pick<GisPoint, 'kind' | 'status'>): PointStyle {
  if (point.kind === 'meter') return meterStyle(point.status);
  if (point.kind === 'consumer') return point.status === 1 ? PROTECTED_STYLE : CONSUMER_STYLE;
  return DCU_STYLE;
}

/** A cluster's diameter grows with the log of its count, so a city of meters stays readable. */
export const clusterDiameter = (count: number) => Math.round(Math.min(56, 28 + 6 * Math.log10(Math.max(count, 1))));

/**
 * Clusters of different kinds in one cell share about its centre; the consumers' and the DCUs' sit
 * off to either side (in fractions of their diameter), so neither hides the meters' one.
 */
export const CLUSTER_OFFSET: Record<GisKind, [number, number]> = {
  meter: [0, 0],
  consumer: [-0.6, -0.4],
  dcu: [0.6, -0.4],
};

/*
 * The outage layer stands out from every status colour: a meter without supply is a black disc in a
 * red ring, its clusters black, the area its dark meters spread over a dashed red circle.
 */
export const DARK_METER_STYLE: PointStyle = { radius: 7, fillColor: '#141414', color: '#f5222d', weight: 3 };
export const OUTAGE_CLUSTER_COLOR = '#141414';
export const OUTAGE_AREA_COLOR = '#cf1322';
/** A wholly dark area is shaded deeper than one where some meters still have supply. */
export const outageAreaFill = (dark: boolean) => (dark ? 0.22 : 0.08);
