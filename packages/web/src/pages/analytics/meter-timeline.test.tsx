import { meterEventsDetailApi, utcToday } from '@meterdesk/contracts';
import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { ChartData } from '@/charts/chart-option';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

// What the kit hands the chart, read here rather than off an SVG.
const drawn = vi.hoisted(() => ({ data: undefined as ChartData | undefined }));
vi.mock('@/charts/chart', () => ({
  Chart: ({ data, testId }: { data: ChartData; testId: string }) => {
    drawn.data = data;
    return <div data-testid={testId} />;
  },
}));

const PAGE = '/dataAnalytic/meterEvents';
const DETAIL = `${PAGE}/meterEventsDetail`;
const METER = 'a'.repeat(32);
const day = (offset: number) =>
  new Date(Date.parse(`${utcToday()}T00:00:00Z`) + offset * 86_400_000).toISOString().slice(0, 10);

describe("a meter's event timeline", () => {
  it('draws the events on rows of levels with their codes named, over the whole chosen period', async () => {
    stubApi({
      [meterEventsDetailApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [meterEventsDetailApi.summary.path]: () =>
        ok({
          figures: { devAddr: 'MTR0001', events: 2, severe: 1, unacknowledged: 2 },
          points: [
            { time: `${day(-3)}T10:00:00.000Z`, regular: null, medium: null, severe: 1 },
            { time: `${day(-2)}T11:00:00.000Z`, regular: 17, medium: null, severe: null },
          ],
        }),
    });
    renderInShell(permittedTree([PAGE, DETAIL]), `${DETAIL}?meterId=${METER}&startDay=${day(-9)}&endDay=${day(0)}`);
    await screen.findByTestId('analytics-chart-meterEventsDetail');
    await waitFor(() => expect(drawn.data?.series[0]?.values.some((v) => v !== null)).toBe(true));
    const data = drawn.data as ChartData;
    expect(data.rows).toBe(true);
    expect(data.series.map((s) => s.name)).toEqual(['Regular', 'Medium', 'Severe']);
    expect(data.series[2]?.dotNames).toEqual(['Code 1', null]);
    expect(data.xRange).toEqual([`${day(-9)}T00:00:00.000Z`, `${day(1)}T00:00:00.000Z`]);
  });
});
