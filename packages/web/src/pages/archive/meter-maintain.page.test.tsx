import { type Meter, type MeterStatusChange, meterApi } from '@meterdesk/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const id = (n: number) => String(n).repeat(32).slice(0, 32);
const meter = (n: number, status: Meter['status']): Meter =>
  meterFixture({
    id: id(n),
    devAddr: `2024000${n}`,
    status,
    pocNo: 'POC-1',
    consumerCode: 'C1',
    consumerName: 'Amira Haddad',
  });
const history: MeterStatusChange[] = [
  {
    id: id(9),
    fromStatus: 2,
    toStatus: 5,
    reason: 'Display shows no digits',
    username: 'admin',
    time: '2026-01-02T08:00:00.000Z',
  },
];

/** The form item of a field: its label, input and error messages. */
function formItem(testId: string): HTMLElement {
  const item = screen.getByTestId(testId).closest('.ant-form-item');
  if (!(item instanceof HTMLElement)) throw new Error(`no form item around ${testId}`);
  return item;
}

const offered = () => [...document.querySelectorAll('.ant-select-item-option')].map((option) => option.textContent);

describe('meter maintain', () => {
  it('offers maintain on the rows that can still move, only with its resource', async () => {
    stubApi({
      [meterApi.list.path]: () => ok({ list: [meter(1, 5), meter(2, 4)], total: 2, curPage: 1, pageSize: 10 }),
    });
    const viewer = renderInShell(permittedTree(['/archiveSetting/meter']), '/archiveSetting/meter');
    await screen.findByText('20240001');
    expect(screen.queryByTestId(`row-maintain-${id(1)}`)).toBeNull();
    viewer.unmount();

    const user = userEvent.setup();
    const { router } = renderInShell(
      permittedTree(['/archiveSetting/meter', '/archiveSetting/meter/maintain']),
      '/archiveSetting/meter',
    );
    await screen.findByText('20240001');
    // A recycled meter has nowhere to go.
    expect(screen.queryByTestId(`row-maintain-${id(2)}`)).toBeNull();
    await user.click(screen.getByTestId(`row-maintain-${id(1)}`));
    await waitFor(() => expect(router.state.location.pathname).toBe('/archiveSetting/meter/maintain'));
    expect(router.state.location.search).toBe(`?id=${id(1)}`);
  });

  it('offers only the statuses the life cycle allows next, sends the reason and shows the history', async () => {
    let current = meter(1, 5);
    const api = stubApi({
      [meterApi.detail.path]: () => ok(current),
      [meterApi.history.path]: () => ok(history),
      [meterApi.maintain.path]: (body) => {
        current = { ...current, status: body.toStatus as Meter['status'] };
        return ok(null);
      },
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/archiveSetting/meter/maintain']), `/archiveSetting/meter/maintain?id=${id(1)}`);

    expect(await screen.findByText('Maintain meter 20240001')).toBeTruthy();
    expect(screen.getByTestId('meter-status').textContent).toBe('Maintenance');
    expect(await within(screen.getByTestId('meter-history')).findByText('Activated → Maintenance')).toBeTruthy();
    expect(screen.getByText('Display shows no digits')).toBeTruthy();

    fireEvent.mouseDown(within(formItem('field-toStatus')).getByRole('combobox'));
    await waitFor(() => expect(offered()).toEqual(['Warehouse', 'Installed', 'Activated', 'Recycled']));
    await user.click(screen.getByTitle('Installed'));
    await user.type(screen.getByTestId('field-reason'), 'Repaired and back on the wall');
    await user.click(screen.getByTestId('meter-maintain-submit'));

    await waitFor(() => expect(api.callsTo(meterApi.maintain.path)).toHaveLength(1));
    expect(api.callsTo(meterApi.maintain.path)[0]?.body).toEqual({
      id: id(1),
      toStatus: 1,
      reason: 'Repaired and back on the wall',
    });
    // The page shows where the meter stands now, and what it may do from there.
    await waitFor(() => expect(screen.getByTestId('meter-status').textContent).toBe('Installed'));
    await waitFor(() => expect(api.callsTo(meterApi.history.path).length).toBeGreaterThan(1));
  });

  it('names both statuses when someone else moved the meter first', async () => {
    stubApi({
      [meterApi.detail.path]: () => ok(meter(1, 5)),
      [meterApi.history.path]: () => ok([]),
      [meterApi.maintain.path]: () =>
        fail(400, 'statusTransitionRefused', {
          issues: [{ field: 'toStatus', key: 'statusTransitionRefused', message: 'A meter cannot go from …' }],
          from: 4,
          to: 0,
        }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/archiveSetting/meter/maintain']), `/archiveSetting/meter/maintain?id=${id(1)}`);

    await screen.findByText('Maintain meter 20240001');
    expect(await screen.findByText('No status change yet')).toBeTruthy();
    fireEvent.mouseDown(within(formItem('field-toStatus')).getByRole('combobox'));
    await user.click(await screen.findByTitle('Warehouse'));
    await user.type(screen.getByTestId('field-reason'), 'Back to stock');
    await user.click(screen.getByTestId('meter-maintain-submit'));

    expect(
      await within(formItem('field-toStatus')).findByText('A meter cannot go from Recycled to Warehouse'),
    ).toBeTruthy();
  });
});

describe('a meter outside the user scope', () => {
  // The server answers its detail and its history 404 alike; the page asks for the history only after the meter.
  const stubOutOfScope = () =>
    stubApi({
      [meterApi.detail.path]: () => fail(404, 'notFound'),
      [meterApi.history.path]: () => fail(404, 'notFound'),
    });

  it.each([
    ['detail', '/archiveSetting/meter/detail'],
    ['maintain', '/archiveSetting/meter/maintain'],
  ])('says once on its %s page that the record is not found', async (_, page) => {
    const api = stubOutOfScope();
    renderInShell(permittedTree([page]), `${page}?id=${id(1)}`);

    expect(await screen.findAllByText('Record not found')).toHaveLength(1);
    expect(api.callsTo(meterApi.history.path)).toHaveLength(0);
    expect(screen.queryByTestId('meter-history')).toBeNull();
  });
});
