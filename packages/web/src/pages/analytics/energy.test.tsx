import { addUtcDays, cumulativeEnergyApi, energyGainApi, energyGainGridApi, utcToday } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const PAGE = '/dataAnalytic/energyGain';
const FEEDER = 'f'.repeat(32);
const figures = { meters: 2, metersWithGain: 2, gain: 8.5, metersDecreased: 0 };
const node = { gridId: FEEDER, gridName: 'Feeder 1', meters: 2, metersWithGain: 2, gain: 8.5, metersDecreased: 0 };

describe('energy gain', () => {
  it('switches between meters and grid nodes keeping the period, and opens the nodes below a node', async () => {
    const user = userEvent.setup();
    const api = stubApi({
      [energyGainApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [energyGainApi.summary.path]: () => ok({ figures, points: [] }),
      [energyGainGridApi.list.path]: () => ok({ list: [node], total: 1, curPage: 1, pageSize: 10 }),
      [energyGainGridApi.summary.path]: () => ok({ figures, points: [{ name: 'Feeder 1', gain: 8.5 }] }),
    });
    const period = { startDay: '2026-01-01', endDay: '2026-01-20' };
    renderInShell(permittedTree([PAGE]), `${PAGE}?${new URLSearchParams(period)}`);
    await waitFor(() => expect(api.callsTo(energyGainApi.list.path)).toHaveLength(1));
    // Largest first unless a sort is chosen: the server's default order.
    expect(api.callsTo(energyGainApi.list.path)[0]?.body).toMatchObject(period);

    await user.click(within(screen.getByTestId('energy-gain-view')).getByText('Grid nodes'));
    const feeder = (await screen.findByText('Feeder 1', { selector: 'td *, td' })).closest('tr') as HTMLElement;
    expect(api.callsTo(energyGainGridApi.list.path)[0]?.body).toMatchObject(period);
    await user.click(within(feeder).getByTestId(`row-below-${FEEDER}`));
    await waitFor(() =>
      expect(api.callsTo(energyGainGridApi.list.path).at(-1)?.body).toMatchObject({ ...period, gridId: FEEDER }),
    );
  });

  it('open on days whose registers are frozen: yesterday, and the week to yesterday', async () => {
    const api = stubApi({
      [cumulativeEnergyApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [cumulativeEnergyApi.summary.path]: () => ok({ figures: {}, points: [] }),
      [energyGainApi.list.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
      [energyGainApi.summary.path]: () => ok({ figures, points: [] }),
    });
    const yesterday = addUtcDays(utcToday(), -1);
    renderInShell(permittedTree(['/dataAnalytic/cumulativeEnergy', PAGE]), '/dataAnalytic/cumulativeEnergy');
    await waitFor(() => expect(api.callsTo(cumulativeEnergyApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(cumulativeEnergyApi.summary.path)[0]?.body).toEqual({ startDay: yesterday, endDay: yesterday });
    renderInShell(permittedTree([PAGE]), PAGE);
    await waitFor(() => expect(api.callsTo(energyGainApi.summary.path)).toHaveLength(1));
    expect(api.callsTo(energyGainApi.summary.path)[0]?.body).toEqual({
      startDay: addUtcDays(yesterday, -6),
      endDay: yesterday,
    });
  });
});
