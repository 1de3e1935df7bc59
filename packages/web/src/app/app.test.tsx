import { authApi, LANGUAGE, noticeApi, resourceApi } from '@meterdesk/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter } from 'react-router';
import { beforeEach, describe, expect, it } from 'vitest';
import { createQueryClient } from '@/api/query-client';
import { applyLanguage, i18n } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { fullTree, permittedTree } from '@/test/resource-tree';
import { AppRoot } from './app';
import { APP_ROUTES } from './router';
import { signIn, signOut } from './session/session-store';

const admin = { username: 'admin', fullName: 'Administrator', language: LANGUAGE.en, mustChangePassword: false };
const captcha = (n: number) => ok({ code: `captcha-${n}`, img: 'data:image/svg+xml;base64,PHN2Zy8+' });
const emptyPage = ok({ list: [], total: 0, curPage: 1, pageSize: 10 });

function renderApp(entry: string) {
  const router = createMemoryRouter(APP_ROUTES, { initialEntries: [entry] });
  render(<AppRoot router={router} queryClient={createQueryClient()} />);
  return { router, user: userEvent.setup() };
}

function captchaApi() {
  let issued = 0;
  return () => captcha(++issued);
}

beforeEach(() => act(() => signOut()));

describe('login', () => {
  it('sends an anonymous visitor to /login and back to the page after logging in, in the user language', async () => {
    const api = stubApi({
      [authApi.getgifcode.path]: captchaApi(),
      [authApi.login.path]: () => ok({ ...admin, language: LANGUAGE.zh }),
      [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/dashboard', '/sysMGT/resourceMGT'])),
      [resourceApi.getsysresourcelist.path]: () => emptyPage,
    });
    const { router, user } = renderApp('/sysMGT/resourceMGT?curPage=1');

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    await user.type(await screen.findByTestId('login-username'), 'admin');
    await user.type(screen.getByTestId('login-password'), 'secret');
    await screen.findByTestId('login-captcha-image');
    await user.type(screen.getByTestId('login-captcha'), 'ab12');
    await user.click(screen.getByTestId('login-submit'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT'));
    expect(api.callsTo(authApi.login.path)[0]?.body).toEqual({
      username: 'admin',
      password: 'secret',
      code: 'captcha-1',
      codeFill: 'ab12',
    });
    expect(i18n.language).toBe('zh');
    expect(await screen.findByTestId('menu-/sysMGT')).toHaveProperty('textContent', '系统管理');
  });

  it('shows the translated refusal and fetches a new captcha after a failed login', async () => {
    const api = stubApi({
      [authApi.getgifcode.path]: captchaApi(),
      [authApi.login.path]: () => fail(400, 'captchaWrong'),
    });
    const { user } = renderApp('/login');

    await user.type(await screen.findByTestId('login-username'), 'admin');
    await user.type(screen.getByTestId('login-password'), 'secret');
    await screen.findByTestId('login-captcha-image');
    await user.type(screen.getByTestId('login-captcha'), 'zzzz');
    await user.click(screen.getByTestId('login-submit'));

    expect((await screen.findByTestId('login-error')).textContent).toContain(
      'The verification code is wrong or has expired',
    );
    await waitFor(() => expect(api.callsTo(authApi.getgifcode.path)).toHaveLength(2));
    expect(screen.getByTestId('login-captcha')).toHaveProperty('value', '');
  });

  it('validates before sending anything', async () => {
    const api = stubApi({ [authApi.getgifcode.path]: captchaApi() });
    const { user } = renderApp('/login');

    await user.click(await screen.findByTestId('login-submit'));

    expect(await screen.findAllByText('This part is mandatory')).toHaveLength(2);
    expect(screen.getByText('Please enter the verification code')).toBeTruthy();
    expect(api.callsTo(authApi.login.path)).toHaveLength(0);
  });

  it('tells how many characters the verification code has, in both languages', async () => {
    stubApi({ [authApi.getgifcode.path]: captchaApi() });
    renderApp('/login');

    const input = await screen.findByTestId('login-captcha');
    expect(input).toMatchObject({ placeholder: '5 characters', maxLength: 5 });
    await act(() => applyLanguage('zh'));
    expect(input).toHaveProperty('placeholder', '5 个字符');
  });

  it('sends a logged-in user from /login to the dashboard', async () => {
    stubApi({ [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/dashboard'])) });
    act(() => signIn(admin));
    const { router } = renderApp('/login');

    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    // The dashboard alone holds no card: it says so.
    expect(await screen.findByTestId('dashboard-empty')).toBeTruthy();
  });
});

describe('permissions', () => {
  it('logs out with the no-permission message when the resource list is empty', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok([]),
      [authApi.loginout.path]: () => ok(null),
      [authApi.getgifcode.path]: captchaApi(),
    });
    act(() => signIn(admin));
    const { router } = renderApp('/dashboard');

    expect(
      await screen.findByText('Current user does not have related permission, please contact administrator'),
    ).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(api.callsTo(authApi.loginout.path)).toHaveLength(1);
  });

  it('warns and returns to login when the permissions cannot load', async () => {
    stubApi({
      [authApi.getuserresourcelist.path]: () => fail(500, 'interfaceError'),
      [authApi.loginout.path]: () => ok(null),
      [authApi.getgifcode.path]: captchaApi(),
    });
    act(() => signIn(admin));
    const { router } = renderApp('/dashboard');

    expect(await screen.findByText('Could not load your permissions, please log in again')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('offers to stay or log in again when a call answers 401 after login (spec §8)', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/sysMGT/resourceMGT'])),
      [resourceApi.getsysresourcelist.path]: () => fail(401, 'sessionExpired'),
      [authApi.getgifcode.path]: captchaApi(),
    });
    act(() => signIn(admin));
    const { router, user } = renderApp('/sysMGT/resourceMGT');

    const dialog = await screen.findByTestId('session-lost');
    expect(within(dialog).getByText('Your session has expired, please log in again')).toBeTruthy();
    expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT');

    await user.click(screen.getByTestId('session-stay'));
    await waitFor(() => expect(screen.queryByTestId('session-lost')).toBeNull());
    expect(router.state.location.pathname).toBe('/sysMGT/resourceMGT');
    expect(screen.getByTestId('resource-list')).toBeTruthy();

    const calls = api.callsTo(resourceApi.getsysresourcelist.path).length;
    await user.click(screen.getByTestId('crud-refresh'));
    await waitFor(() => expect(api.callsTo(resourceApi.getsysresourcelist.path).length).toBeGreaterThan(calls));
    await user.click(await screen.findByTestId('session-login'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(await screen.findByTestId('login-captcha-image')).toBeTruthy();
  });

  it('shows the notice badge only with the subscribe button', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/dashboard', '/sysMGT/notifyMGT/subscribe'])),
      [noticeApi.countunreadnoticenum.path]: () => ok({ count: 3 }),
    });
    act(() => signIn(admin));
    const { router, user } = renderApp('/dashboard');

    await user.click(await screen.findByTestId('notice-badge'));

    expect(api.callsTo(noticeApi.countunreadnoticenum.path)).toHaveLength(1);
    expect(screen.getByText('3')).toBeTruthy();
    await waitFor(() => expect(router.state.location.pathname).toBe('/sysMGT/notifyMGT'));
  });

  it('never asks for the unread count without the subscribe button', async () => {
    const api = stubApi({ [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/dashboard'])) });
    act(() => signIn(admin));
    renderApp('/dashboard');

    await screen.findByTestId('dashboard-empty');
    expect(screen.queryByTestId('notice-badge')).toBeNull();
    expect(api.callsTo(noticeApi.countunreadnoticenum.path)).toHaveLength(0);
  });
});

describe('shell', () => {
  const tree = permittedTree(['/dashboard', '/sysMGT/resourceMGT', '/archiveSetting/meter', '/dataAnalytic/gis']);

  it('keeps a half-filled form when the user switches tabs and back, and asks before closing it', async () => {
    stubApi({
      [authApi.getuserresourcelist.path]: () => ok(permittedTree(['/dashboard', '/sysMGT/resourceMGT/add'])),
      [resourceApi.getsysresourcetree.path]: () => ok([]),
      [resourceApi.checkresourcename.path]: () => ok({ existed: false }),
    });
    act(() => signIn(admin));
    const { router, user } = renderApp('/sysMGT/resourceMGT/add');

    await user.type(await screen.findByTestId('field-resourceNameEn'), 'Half done');
    await user.click(screen.getByTestId('tab-/dashboard'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(screen.queryByText('Leave this page?')).toBeNull();
    await user.click(await screen.findByTestId('tab-/sysMGT/resourceMGT/add'));

    expect(await screen.findByDisplayValue('Half done')).toBeTruthy();

    await user.click(screen.getByTestId('tab-close-/sysMGT/resourceMGT/add'));
    expect(await screen.findByText('Leave this page?')).toBeTruthy();
  });

  it('opens a tab per page, closes them, and keeps the dashboard', async () => {
    stubApi({
      [authApi.getuserresourcelist.path]: () => ok(tree),
      [resourceApi.getsysresourcelist.path]: () => emptyPage,
    });
    act(() => signIn(admin));
    const { router, user } = renderApp('/dashboard');

    await screen.findByTestId('tab-/dashboard');
    await act(() => router.navigate('/archiveSetting/meter'));
    await act(() => router.navigate('/sysMGT/resourceMGT?curPage=2'));
    await screen.findByTestId('tab-/sysMGT/resourceMGT');
    expect(screen.getByTestId('tab-/archiveSetting/meter').textContent).toBe('Meter');
    expect(screen.queryByTestId('tab-close-/dashboard')).toBeNull();

    await user.click(screen.getByTestId('tab-close-/sysMGT/resourceMGT'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/archiveSetting/meter'));
    expect(screen.queryByTestId('tab-/sysMGT/resourceMGT')).toBeNull();

    await user.click(screen.getByTestId('tabs-close-all'));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(screen.queryByTestId('tab-/archiveSetting/meter')).toBeNull();
  });

  it('shows every area in the header menu, with a More item for those a narrow window has no room for', async () => {
    stubApi({ [authApi.getuserresourcelist.path]: () => ok(fullTree()) });
    act(() => signIn(admin));
    renderApp('/dashboard');

    const menu = await screen.findByTestId('header-menu');
    const areas = fullTree().filter((node) => node.resourceType === 0);
    expect(areas).toHaveLength(8);
    for (const area of areas) expect(within(menu).getByTestId(`menu-${area.resourceUri}`)).toBeTruthy();
    // jsdom measures nothing, so what folds is the browser's to show; the menu may fold, never wrap.
    expect(within(menu).getByTestId('menu-more').textContent?.trim()).toBe('More');
  });

  it('switches menu and tab titles with the language', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(tree),
      [authApi.changelanguage.path]: () => ok(null),
    });
    act(() => signIn(admin));
    const { user } = renderApp('/dashboard');

    expect((await screen.findByTestId('tab-/dashboard')).textContent).toBe('Dashboard');
    await user.click(screen.getByTestId('language-switch'));
    await user.click(await screen.findByTestId('language-zh'));

    await waitFor(() => expect(screen.getByTestId('tab-/dashboard').textContent).toBe('首页'));
    expect(within(screen.getByTestId('header-menu')).getByText('系统管理')).toBeTruthy();
    expect(api.callsTo(authApi.changelanguage.path)[0]?.body).toEqual({ type: LANGUAGE.zh });
  });

  it('logs out from the user menu', async () => {
    const api = stubApi({
      [authApi.getuserresourcelist.path]: () => ok(tree),
      [authApi.loginout.path]: () => ok(null),
      [authApi.getgifcode.path]: captchaApi(),
    });
    act(() => signIn(admin));
    const { router, user } = renderApp('/dashboard');

    await user.click(await screen.findByTestId('user-menu'));
    await user.click(await screen.findByTestId('menu-logout'));

    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(api.callsTo(authApi.loginout.path)).toHaveLength(1);
  });
});
