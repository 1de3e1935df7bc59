import { authApi, RES, RESULT } from '@meterdesk/contracts';
import { useQuery } from '@tanstack/react-query';
import { Layout } from 'antd';
import { type CSSProperties, lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Navigate, useLocation } from 'react-router';
import { ApiError, callApi } from '@/api/api-client';
import { AntdRoot } from '@/app/antd-root';
import { PermissionProvider, usePermissions } from '@/app/permissions/permission-context';
import { indexPermissions, pageTitle } from '@/app/permissions/permission-index';
import { lazyPage } from '@/app/routing/lazy-page';
import { PageBoundary, PageLoading } from '@/app/routing/page-boundary';
import { LOGIN_PATH, SHELL_PATHS } from '@/app/routing/paths';
import { buildRouteTable, normalizePath } from '@/app/routing/route-table';
import { type SessionUser, useSession } from '@/app/session/session-store';
import { createTabStore } from '@/app/tabs/tab-store';
import { TabsProvider } from '@/app/tabs/tabs-context';
import { formDrafts } from '@/crud/form-drafts';
import { messageText } from '@/i18n/message-text';
import { AppHeader, HEADER_HEIGHT } from './app-header';
import { PageBreadcrumb } from './page-breadcrumb';
import { PageTabs } from './page-tabs';
import { ShellRoutes } from './shell-routes';
import { tabStorageKey, useEndSession } from './use-end-session';
import { useVisitLog } from './use-visit-log';
import { useWindowHeight } from './use-window-height';

/** Below this window height the page area scrolls inside the window instead of the whole page. */
const COMPACT_HEIGHT = 920;
/** Open tabs beyond this close the least recently used: a bar of fifty tabs is no longer read. */
const MAX_TABS = 20;
/** Header, tab bar, breadcrumb and padding above and below the page area. */
const CHROME_HEIGHT = HEADER_HEIGHT + 40 + 38 + 16;

function pageAreaStyle(windowHeight: number): CSSProperties {
  const available = Math.max(windowHeight - CHROME_HEIGHT, 240);
  return windowHeight < COMPACT_HEIGHT ? { height: available, overflow: 'auto' } : { minHeight: available };
}

// The password form, its dialog and the gate (antd's Form and Result) load when asked for: a user who must
// change the password, or the user menu's entry. The way to the dashboard does without them.
const PasswordGate = lazyPage(() => import('./password-gate').then((m) => m.PasswordGate));
const ChangePasswordModal = lazy(() =>
  import('./change-password-modal').then((m) => ({ default: m.ChangePasswordModal })),
);

function ShellLayout({ user }: { user: SessionUser }) {
  const { t } = useTranslation();
  const permissions = usePermissions();
  const location = useLocation();
  const windowHeight = useWindowHeight();
  const endSession = useEndSession(user.username);
  const [changingPassword, setChangingPassword] = useState(user.mustChangePassword);
  // Once opened, the dialog stays mounted, so that it closes with its animation.
  const [passwordDialog, setPasswordDialog] = useState(false);
  const table = useMemo(() => buildRouteTable(permissions), [permissions]);
  const tabs = useMemo(
    () =>
      createTabStore({
        storage: sessionStorage,
        storageKey: tabStorageKey(user.username),
        pinnedKey: RES.dashboard,
        fallbackLocation: SHELL_PATHS.home,
        maxTabs: MAX_TABS,
        // Closing a tab drops the form typed in it; the user alone decides that.
        evictable: (tab) => formDrafts.get(tab.location) === undefined,
      }),
    [user.username],
  );
  const path = normalizePath(location.pathname);
  const { search } = location;
  const gated = user.mustChangePassword;
  const isPage = table.routes.get(path)?.kind === 'page';
  useVisitLog(path, isPage && !gated ? pageTitle(permissions, path, 'en') : undefined);

  useEffect(() => {
    if (gated) return;
    const isTab = (key: string) => table.routes.get(key)?.kind === 'page' || key === SHELL_PATHS.version;
    tabs.retain(isTab);
    if (isTab(RES.dashboard)) tabs.pin();
    if (isTab(path)) tabs.open(path, `${path}${search}`);
  }, [tabs, table, path, search, gated]);

  return (
    <TabsProvider store={tabs}>
      <Layout style={{ minHeight: '100vh' }}>
        <AppHeader
          user={user}
          notices={!gated}
          onChangePassword={() => {
            setPasswordDialog(true);
            setChangingPassword(true);
          }}
          onLogout={() => void endSession()}
        />
        <Layout.Content style={{ padding: '8px 16px 16px' }}>
          {gated ? (
            <PageBoundary>
              <PasswordGate />
            </PageBoundary>
          ) : (
            <>
              <PageTabs />
              <PageBreadcrumb />
              {/* The path of the page the area shows. The router renders a new address in a transition, and on
                  a busy machine the page before stays on screen and answers clicks for a while: a journey that
                  changed the address waits for this, not for the address. */}
              <div style={pageAreaStyle(windowHeight)} data-testid="page-area" data-path={path}>
                <ShellRoutes table={table} />
              </div>
            </>
          )}
        </Layout.Content>
      </Layout>
      {(passwordDialog || gated) && (
        <Suspense fallback={null}>
          <ChangePasswordModal
            open={changingPassword || gated}
            prompted={gated}
            onClose={() => setChangingPassword(false)}
            onChanged={() => {
              setChangingPassword(false);
              // spec §4: logged out and sent to /login, which says why (a message here would leave with the shell).
              void endSession({ callServer: false, notice: { text: t('password.changed'), tone: 'success' } });
            }}
          />
        </Suspense>
      )}
    </TabsProvider>
  );
}

/** Loads the permitted tree before any route exists; without one the user goes back to /login. */
function PermissionGate({ user }: { user: SessionUser }) {
  const { t } = useTranslation();
  const endSession = useEndSession(user.username);
  const resources = useQuery({
    queryKey: ['permissions', user.username],
    queryFn: ({ signal }) => callApi(authApi.getuserresourcelist, {}, { signal }),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
  const index = useMemo(() => (resources.data ? indexPermissions(resources.data) : undefined), [resources.data]);
  const failure = resources.error;
  const empty = resources.data?.length === 0;

  useEffect(() => {
    // A 401 already offers staying or logging in again (the root layout's dialog).
    if (failure instanceof ApiError && failure.code === RESULT.unauthorized) return;
    if (failure) void endSession({ notice: { text: t('shell.permissionLoadFailed'), tone: 'error' } });
    else if (empty) void endSession({ notice: { text: messageText(t, 'noPermission'), tone: 'error' } });
  }, [failure, empty, t, endSession]);

  if (!index || index.tree.length === 0) return <PageLoading />;
  return (
    <PermissionProvider index={index}>
      <ShellLayout user={user} />
    </PermissionProvider>
  );
}

export function Shell() {
  const session = useSession();
  const location = useLocation();
  if (session.status !== 'authenticated') return <Navigate to={LOGIN_PATH} replace state={{ from: location }} />;
  return (
    <AntdRoot>
      <PermissionGate key={session.user.username} user={session.user} />
    </AntdRoot>
  );
}
