import { authApi, LANGUAGE, noticeApi, resourceApi, syslogApi } from '@meterdesk/contracts';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '@/api/query-client';
import { AppRoot } from '@/app/app';
import { APP_ROUTES } from '@/app/router';
import { signIn, signOut } from '@/app/session/session-store';
import { ok, stubApi } from '@/test/api-stub';
import { permittedTree } from '@/test/resource-tree';

const user = { username: 'meter.reader', fullName: 'Reader', language: LANGUAGE.en, mustChangePassword: false };
const emptyPage = ok({ list: [], total: 0, curPage: 1, pageSize: 10 });
const tree = permittedTree(['/dashboard', '/sysMGT/resourceMGT', '/sysMGT/notifyMGT/subscribe']);

function renderApp(entry: string) {
  const router = createMemoryRouter(APP_ROUTES, { initialEntries: [entry] });
  render(<AppRoot router={router} queryClient={createQueryClient()} />);
  return { router, user: userEvent.setup() };
}

beforeEach(() => act(() => signOut()));

describe('visit log', () => {
  it('records each page the shell opens, once, and not a change of its list query', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(tree),
      [resourceApi.getsysresourcelist.path]: () => emptyPage,
      [noticeApi.countunreadnoticenum.path]: () => ok({ count: 0 }),
      [syslogApi.savevisitlog.path]: () => ok(null),
    });
    act(() => signIn(user));
    const { router } = renderApp('/');
    const visits = () => api.callsTo(syslogApi.savevisitlog.path).map((call) => call.body);

    await waitFor(() => expect(visits()).toEqual([{ pageUri: '/dashboard', pageName: 'Dashboard' }]));
    await act(() => router.navigate('/sysMGT'));
    await screen.findByTestId('resource-list');
    await act(() => router.navigate('/sysMGT/resourceMGT?curPage=2'));
    await act(() => router.navigate('/dashboard'));

    await waitFor(() => expect(visits()).toHaveLength(3));
    expect(visits()).toEqual([
      { pageUri: '/dashboard', pageName: 'Dashboard' },
      { pageUri: '/sysMGT/resourceMGT', pageName: 'Resource' },
      { pageUri: '/dashboard', pageName: 'Dashboard' },
    ]);
  });

  it('records nothing on the login page', async () => {
    const api = stubApi({
      [authApi.getgifcode.path]: () => ok({ code: 'c', img: 'data:image/svg+xml;base64,PHN2Zy8+' }),
    });
    renderApp('/login');

    await screen.findByTestId('login-captcha-image');
    expect(api.callsTo(syslogApi.savevisitlog.path)).toHaveLength(0);
  });
});

describe('administrator-set password', () => {
  it('keeps the user out of every page until the password is changed, then sends them to log in again, saying why', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(tree),
      [authApi.updatepassword.path]: () => ok(null),
      [authApi.getgifcode.path]: () => ok({ code: 'c', img: 'data:image/svg+xml;base64,PHN2Zy8+' }),
      [syslogApi.savevisitlog.path]: () => ok(null),
    });
    act(() => signIn({ ...user, mustChangePassword: true }));
    const { router, user: person } = renderApp('/sysMGT/resourceMGT');

    expect(await screen.findByTestId('password-gate')).toBeTruthy();
    expect(
      await screen.findByText('Please change your password before you continue', { selector: '.ant-alert *' }),
    ).toBeTruthy();
    expect(screen.queryByTestId('page-area')).toBeNull();
    expect(screen.queryByTestId('password-cancel')).toBeNull();
    expect(document.querySelector('.ant-modal-close')).toBeNull();

    await person.keyboard('{Escape}');
    expect(screen.getByTestId('password-form')).toBeTruthy();

    await person.type(screen.getByTestId('password-raw'), 'Reader@1');
    await person.type(screen.getByTestId('password-new'), 'Mine@123');
    await person.type(screen.getByTestId('password-confirm'), 'Mine@123');
    await person.click(screen.getByTestId('password-submit'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect((await screen.findByTestId('login-notice')).textContent).toBe('Password changed, please log in again');
    expect(api.callsTo(authApi.updatepassword.path)[0]?.body).toEqual({
      rawPassword: 'Reader@1',
      newPassword: 'Mine@123',
    });
    // Everything else answers 403 until then; the shell asked for nothing but its permission tree.
    expect(api.callsTo(resourceApi.getsysresourcelist.path)).toHaveLength(0);
    expect(api.callsTo(noticeApi.countunreadnoticenum.path)).toHaveLength(0);
    expect(api.callsTo(syslogApi.savevisitlog.path)).toHaveLength(0);
  });
});
