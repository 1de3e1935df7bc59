import type { ChartTone } from '@meterdesk/contracts';

/** A light theme that prints as it shows: white ground, dark text, the shell's colours, no shadows. */
export const THEME_NAME = 'meterdesk-print';

export const SERIES_COLOURS = [
  '#1677ff',
  '#52c41a',
  '#fa8c16',
  '#eb2f96',
  '#13c2c2',
  '#722ed1',
  '#fadb14',
  '#a0d911',
  '#2f54eb',
  '#f5222d',
];

/** The colour of a series whose tone says what it means, the shell's status colours. */
export const TONE_COLOURS: Readonly<Record<ChartTone, string>> = {
  good: '#52c41a',
  warning: '#fa8c16',
  bad: '#f5222d',
};

export const PRINT_THEME = {
  color: SERIES_COLOURS,
  backgroundColor: '#ffffff',
  textStyle: { color: 'rgba(0, 0, 0, 0.88)' },
  categoryAxis: {
    axisLine: { lineStyle: { color: '#8c8c8c' } },
    axisLabel: { color: 'rgba(0, 0, 0, 0.65)' },
    splitLine: { show: false },
  },
  valueAxis: {
    axisLine: { show: false },
    axisLabel: { color: 'rgba(0, 0, 0, 0.65)' },
    splitLine: { lineStyle: { color: '#f0f0f0' } },
  },
  timeAxis: {
    axisLine: { lineStyle: { color: '#8c8c8c' } },
    axisLabel: { color: 'rgba(0, 0, 0, 0.65)' },
    splitLine: { show: false },
  },
  legend: { textStyle: { color: 'rgba(0, 0, 0, 0.88)' } },
  tooltip: { backgroundColor: '#ffffff', borderColor: '#d9d9d9', textStyle: { color: 'rgba(0, 0, 0, 0.88)' } },
  dataZoom: { borderColor: '#d9d9d9', textStyle: { color: 'rgba(0, 0, 0, 0.65)' } },
};
