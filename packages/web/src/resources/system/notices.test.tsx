import { noticeApi } from '@meterdesk/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { formatDateTime } from '@/fields/date-text';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const ID = 'd'.repeat(32);
const READ_AT = '2024-03-04T05:06:07.000Z';

describe('my notices', () => {
  it('shows the read time as soon as a notice is read, and keeps its line breaks', async () => {
    let read = false;
    const notice = () => ({
      id: ID,
      noticeBatchId: 'e'.repeat(32),
      noticeType: 0,
      noticeTitle: 'Maintenance',
      noticeContent: 'Line one\nLine two',
      sendUsername: 'admin',
      recUsername: 'ann',
      noticeFlag: read ? 1 : 0,
      sendTime: '2024-03-01T00:00:00.000Z',
      readTime: read ? READ_AT : '',
    });
    stubApi({
      [noticeApi.getnoticelogpageforcurrentuser.path]: () =>
        ok({ list: [notice()], total: 1, curPage: 1, pageSize: 10 }),
      [noticeApi.readnotice.path]: () => {
        read = true;
        return ok(null);
      },
      [noticeApi.countunreadnoticenum.path]: () => ok({ count: 0 }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/notifyMGT', '/sysMGT/notifyMGT/subscribe']), '/sysMGT/notifyMGT');

    await user.click(await screen.findByTestId(`row-view-${ID}`));

    const detail = await screen.findByTestId('notice-detail');
    await waitFor(() => expect(within(detail).getByText(formatDateTime(READ_AT))).toBeTruthy());
    const content = within(detail).getByText(/Line one/);
    expect(content.textContent).toBe('Line one\nLine two');
    expect(content.style.whiteSpace).toBe('pre-wrap');
  });
});
