import { Alert, Empty, Skeleton } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type ChartData, chartOption } from './chart-option';
import { THEME_NAME } from './theme';

type Runtime = typeof import('./echarts-runtime');
let runtime: Promise<Runtime> | undefined;
/** ECharts arrives once, as its own chunk, the first time a chart is drawn. */
const loadRuntime = () => {
  runtime ??= import('./echarts-runtime').catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
};

/**
 * A chart of `data`, drawn by ECharts in the print-friendly theme, resized with its box. Shows a
 * skeleton while its code loads, "no data" when every value is missing, and an error when the chart
 * code cannot be loaded (the page around it keeps working).
 */
export function Chart({ data, height = 280, testId }: { data: ChartData; height?: number; testId: string }) {
  const { t } = useTranslation();
  const box = useRef<HTMLDivElement>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');
  const empty = data.series.every((s) => s.values.every((v) => v === null));
  const option = JSON.stringify(chartOption(data));

  useEffect(() => {
    if (empty) return;
    let disposed = false;
    let dispose = () => {};
    loadRuntime().then(
      ({ echarts }) => {
        if (disposed || !box.current) return;
        const chart = echarts.init(box.current, THEME_NAME, { renderer: 'svg' });
        // ECharts measures labels on a canvas, where `inherit` is no font: given the page's own, a
        // legend's items are spaced by the width their text really takes.
        const fontFamily = getComputedStyle(box.current).fontFamily;
        chart.setOption({ ...(JSON.parse(option) as Record<string, unknown>), textStyle: { fontFamily } });
        const observer = new ResizeObserver(() => chart.resize());
        observer.observe(box.current);
        dispose = () => {
          observer.disconnect();
          chart.dispose();
        };
        setState('ready');
      },
      () => {
        if (!disposed) setState('failed');
      },
    );
    return () => {
      disposed = true;
      dispose();
    };
  }, [option, empty]);

  if (empty)
    return (
      <div data-testid={testId} data-state="empty">
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('analytics.noData')} />
      </div>
    );
  if (state === 'failed')
    return (
      <Alert data-testid={testId} data-state="failed" type="warning" showIcon title={t('analytics.chartFailed')} />
    );
  return (
    <div data-testid={testId} data-state={state} style={{ position: 'relative', height }}>
      {state === 'loading' && <Skeleton active paragraph={{ rows: 4 }} style={{ position: 'absolute', inset: 0 }} />}
      <div ref={box} style={{ height, width: '100%' }} />
    </div>
  );
}
