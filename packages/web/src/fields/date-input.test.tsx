import { groupApi, orgApi, roleApi, syslogApi, userApi } from '@meterdesk/contracts';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { ok, stubApi } from '@/test/api-stub';
import { renderInShell } from '@/test/render-in-shell';
import { permittedTree } from '@/test/resource-tree';

const emptyPage = { list: [], total: 0, curPage: 1, pageSize: 1000 };

describe('date inputs', () => {
  it('keep a typed date followed by Enter', async () => {
    stubApi({
      [orgApi.treesysorg.path]: () => ok([]),
      [roleApi.getsysrolelist.path]: () => ok(emptyPage),
      [groupApi.getsysgrouplist.path]: () => ok(emptyPage),
      [userApi.checkusername.path]: () => ok({ existed: false }),
    });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/userMGT/add']), '/sysMGT/userMGT/add');

    const birthday = await screen.findByTestId('field-birthday');
    await user.click(birthday);
    await user.type(birthday, '1990-05-06{Enter}');
    const expiry = screen.getByTestId('field-expiryDate');
    await user.click(expiry);
    await user.type(expiry, '2030-01-02 03:04:05{Enter}');
    await user.click(screen.getByTestId('field-username'));

    await waitFor(() => expect((birthday as HTMLInputElement).value).toBe('1990-05-06'));
    expect((expiry as HTMLInputElement).value).toBe('2030-01-02 03:04:05');
  });

  it('keep a typed time range followed by Enter, and search with it', async () => {
    const api = stubApi({ [syslogApi.listsystemlog.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }) });
    const user = userEvent.setup();
    renderInShell(permittedTree(['/sysMGT/sysJournal']), '/sysMGT/sysJournal');
    const day = (n: number) => dayjs().subtract(n, 'day').format('YYYY-MM-DD');

    await screen.findByTestId('syslog-list');
    const [start, end] = [...document.querySelectorAll<HTMLInputElement>('.ant-picker-range input')];
    if (!start || !end) throw new Error('no range inputs');
    await user.click(start);
    await user.clear(start);
    await user.type(start, `${day(3)} 00:00:00{Enter}`);
    await user.clear(end);
    await user.type(end, `${day(1)} 12:00:00{Enter}`);
    await user.click(screen.getByTestId('crud-search'));

    await waitFor(() => expect(api.callsTo(syslogApi.listsystemlog.path).length).toBeGreaterThan(1));
    const body = api.callsTo(syslogApi.listsystemlog.path).at(-1)?.body as Record<string, string>;
    expect(dayjs(body.startTime).format('YYYY-MM-DD HH:mm:ss')).toBe(`${day(3)} 00:00:00`);
    expect(dayjs(body.endTime).format('YYYY-MM-DD HH:mm:ss')).toBe(`${day(1)} 12:00:00`);
  });
});
