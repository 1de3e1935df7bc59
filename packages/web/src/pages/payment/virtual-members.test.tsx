import { meterApi, virtualMeterApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { meterFixture } from '@/test/meter-fixture';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const DETAIL = '/archiveSetting/meter/detail';
const MALL = 'a'.repeat(32);
const MAIN = 'b'.repeat(32);
const TENANT = 'c'.repeat(32);

describe("a virtual meter's members", () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows them under the detail and puts a refused member on its row', async () => {
    const api = stubApi({
      [meterApi.detail.path]: () => ok(meterFixture({ id: MALL, devAddr: 'MALL0001', virtual: true })),
      [meterApi.history.path]: () => ok([]),
      [meterApi.options.path]: () =>
        ok({
          list: [
            { id: MAIN, label: 'MAIN0001' },
            { id: TENANT, label: 'TEN00001' },
          ],
          more: false,
        }),
      [virtualMeterApi.members.path]: () =>
        ok({
          virtual: true,
          members: [
            { meterId: MAIN, devAddr: 'MAIN0001', channel: 'activeImport', sign: 1 },
            { meterId: TENANT, devAddr: 'TEN00001', channel: 'activeImport', sign: -1 },
          ],
        }),
      [virtualMeterApi.saveMembers.path]: () =>
        fail(400, 'virtualMemberTwice', {
          issues: [{ field: 'members.1.meterId', key: 'virtualMemberTwice', message: '' }],
        }),
    });
    renderInShell(permittedTree([DETAIL, '/archiveSetting/meter/edit']), `${DETAIL}?id=${MALL}`);
    const card = await screen.findByTestId('virtual-members');
    await waitFor(() => expect(within(card).getByText('TEN00001')).toBeTruthy());
    expect(within(card).getByText('Virtual')).toBeTruthy();

    await userEvent.setup().click(within(card).getByTestId('member-save'));
    const row = within(card).getByTestId('member-1');
    await waitFor(() => expect(within(row).getByText('This meter is a member twice on the same channel')).toBeTruthy());
    expect(api.callsTo(virtualMeterApi.saveMembers.path)[0]?.body).toEqual({
      id: MALL,
      members: [
        { meterId: MAIN, channel: 'activeImport', sign: 1 },
        { meterId: TENANT, channel: 'activeImport', sign: -1 },
      ],
    });
  });
});
