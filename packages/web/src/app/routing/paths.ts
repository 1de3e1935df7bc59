export const LOGIN_PATH = '/login';

/** Shell pages every logged-in user has; they are not resources. */
export const SHELL_PATHS = {
  home: '/',
  notFound: '/404',
  forbidden: '/403',
  noPermission: '/no-permission',
  version: '/version',
} as const;
