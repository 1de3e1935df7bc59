import { RES, settingsApi, TARIFF_RES, tariffApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';
import { associatedFixture, tariffFixture } from '@/test/tariff-fixture';

const LIMITS = {
  id: '1'.repeat(32),
  tariffValidCount: 4,
  tariffDays: 1,
  tariffWeeks: 4,
  tariffSeasons: 4,
  tariffSpecialDays: 4,
};

/** A new tariff's Add page: its calendar starts as one season, one week and a day off-peak at night. */
function openAdd(extra: Parameters<typeof stubApi>[0] = {}) {
  const api = stubApi({
    [settingsApi.gettariffconfiglist.path]: () => ok([LIMITS]),
    [tariffApi.check.path]: () => ok({ existed: false }),
    ...extra,
  });
  renderInShell(permittedTree([TARIFF_RES.add, RES.systemSettings]), TARIFF_RES.add);
  return api;
}

const segment = (n: number) => screen.getByTestId(`segment-1-${n}`);
const stretch = (n: number) => {
  const s = segment(n);
  return `${s.dataset.start}-${s.dataset.end} rate ${s.dataset.rate} "${s.textContent}"`;
};

describe('the tariff calendar editor', () => {
  it('draws the day as rate segments, and an added switch and its rate on the bar', async () => {
    const user = userEvent.setup();
    openAdd();
    await screen.findByTestId('day-bar-1');
    expect([0, 1, 2].map(stretch)).toEqual([
      '00:00-07:00 rate 2 "2"',
      '07:00-23:00 rate 1 "1"',
      '23:00-24:00 rate 2 "2"',
    ]);

    // The new switch halves the longest stretch and takes the next rate.
    await user.click(screen.getByTestId('add-switch-1'));
    expect([1, 2, 3].map(stretch)).toEqual([
      '07:00-15:00 rate 1 "1"',
      '15:00-23:00 rate 2 "2"',
      '23:00-24:00 rate 2 "2"',
    ]);
    const rate3 = within(screen.getByTestId('switch-1-2')).getByRole('radio', { name: 'Rate 3' });
    await user.click(rate3.closest('label') as HTMLElement);
    expect(stretch(2)).toBe('15:00-23:00 rate 3 "3"');
    // Moved with the keyboard on its handle, an hour a step with Shift.
    screen.getByTestId('switch-handle-1-2').focus();
    await user.keyboard('{Shift>}{ArrowRight}{/Shift}');
    expect(stretch(2)).toBe('16:00-23:00 rate 3 "3"');
    expect((screen.getByTestId('switch-1-2-time') as HTMLInputElement).value).toBe('16:00');
  });

  it('shows each issue at its part as the user edits, and the server’s at the part its path names', async () => {
    const user = userEvent.setup();
    const api = openAdd({
      [tariffApi.save.path]: () =>
        fail(400, 'invalidParams', {
          issues: [{ field: 'calendar.days.0.switches.2.time', key: 'tariffSwitchOrder', message: '' }],
        }),
    });
    const time = await screen.findByTestId('switch-1-1-time');
    await user.clear(time);
    await user.type(time, '00:03');
    expect((await screen.findByTestId('issue-days.0.switches.1')).textContent).toBe(
      'A tariff interval must be at least 5 minutes',
    );
    expect(segment(1).className).toContain('tou-bad');
    await user.type(screen.getByTestId('field-tariffName'), 'Residential TOU');
    await user.click(screen.getByTestId('crud-save'));
    await screen.findByText('Correct the marked parts of the calendar first');
    expect(api.callsTo(tariffApi.save.path)).toHaveLength(0);

    // One day profile is all the limitation settings allow: the second is refused, pointing to them.
    await user.click(screen.getByTestId('add-day'));
    const limit = await screen.findByTestId('issue-days');
    expect(limit.textContent).toContain('Exceeding limitation: at most 1 day profiles.');
    expect(within(limit).getByTestId('limit-settings-days').getAttribute('href')).toBe(RES.systemSettings);
    await user.click(screen.getByTestId('remove-day-2'));

    await user.clear(time);
    await user.type(time, '07:00');
    await waitFor(() => expect(screen.queryByTestId('calendar-issue-summary')).toBeNull());
    await user.click(screen.getByTestId('crud-save'));
    expect((await screen.findByTestId('issue-days.0.switches.2')).textContent).toBe(
      'Switching times must be in order, each later than the one before',
    );
    expect(api.callsTo(tariffApi.save.path)[0]?.body).toMatchObject({
      tariffName: 'Residential TOU',
      calendar: { seasons: [{ start: '01-01', weekId: 1 }] },
    });
  });

  it('names the rate that applies at a chosen moment, why, and its price', async () => {
    const user = userEvent.setup();
    openAdd();
    const price = await screen.findByTestId('field-price1');
    await user.clear(price);
    await user.type(price, '0.85');
    const moment = screen.getByTestId('preview-moment');
    await user.click(moment);
    await user.clear(moment);
    await user.type(moment, '2026-03-04 08:30{Enter}');
    await waitFor(() => expect(screen.getByTestId('preview-rate').textContent).toBe('Rate 1'));
    expect(screen.getByTestId('preview-price').textContent).toBe('0.85 per kWh');
    expect(screen.getByTestId('preview-why').textContent).toBe(
      'Season 1 (from 01-01) → Week profile 1 → Wednesday → Day profile 1 → 07:00–23:00',
    );

    // A special day on 4 March follows its own day profile, whatever the season says.
    await user.click(screen.getByTestId('add-special-day'));
    const date = screen.getByTestId('special-day-0-date');
    await user.clear(date);
    await user.type(date, '03-04');
    expect(screen.getByTestId('preview-why').textContent).toBe('Special day 03-04 → Day profile 1 → 07:00–23:00');
    expect(screen.getByTestId('special-mark-0').getAttribute('title')).toBe('03-04: day profile 1');
  });
});

describe("a tariff's Associated page", () => {
  it('lists the meters using the tariff page by page, and its POCs with their sync status', async () => {
    const user = userEvent.setup();
    const tariff = tariffFixture();
    const api = stubApi({
      [tariffApi.detail.path]: () => ok(tariff),
      [tariffApi.associated.path]: (body) => {
        const kind = body.kind as 'meter' | 'poc';
        const total = kind === 'meter' ? 12 : 1;
        const first = ((body.curPage as number) - 1) * (body.pageSize as number);
        const list = Array.from({ length: Math.min(total - first, body.pageSize as number) }, (_, n) =>
          associatedFixture(kind, first + n + 1),
        );
        return ok({ list, total, curPage: body.curPage, pageSize: body.pageSize });
      },
    });
    renderInShell(permittedTree([TARIFF_RES.page, TARIFF_RES.associated]), `${TARIFF_RES.associated}?id=${tariff.id}`);

    await screen.findByText('Meters and POCs using Residential TOU');
    const first = await screen.findByTestId(`associated-meter-${associatedFixture('meter', 1).id}`);
    expect(first.textContent).toContain('TOU0001');
    expect(first.textContent).toContain('Consumer 1');
    await user.click(screen.getByTitle('2'));
    await screen.findByTestId(`associated-meter-${associatedFixture('meter', 12).id}`);
    expect(api.callsTo(tariffApi.associated.path).at(-1)?.body).toMatchObject({
      id: tariff.id,
      kind: 'meter',
      curPage: 2,
    });

    await user.click(screen.getByText('POCs'));
    const poc = await screen.findByTestId(`associated-poc-${associatedFixture('poc', 1).id}`);
    expect(poc.textContent).toContain('Synchronized');
    expect(api.callsTo(tariffApi.associated.path).at(-1)?.body).toMatchObject({ kind: 'poc', curPage: 1 });
  });
});
