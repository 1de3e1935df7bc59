export const common = {
  appName: 'Meterdesk',
  languages: { en: 'English', zh: '中文' },
  language: 'Language',
  actions: {
    search: 'Search',
    reset: 'Reset',
    add: 'Add',
    edit: 'Edit',
    view: 'View',
    save: 'Save',
    cancel: 'Cancel',
    back: 'Back',
    retry: 'Retry',
    delete: 'Delete',
    close: 'Close',
  },
  yes: 'Yes',
  no: 'No',
};

export const login = {
  subtitle: 'Metering back-office',
  username: 'Username',
  password: 'Password',
  captcha: 'Verification code',
  captchaImage: 'Verification code image, click for a new one',
  captchaLength: '{{count}} characters',
  submit: 'Log in',
};

export const shell = {
  home: 'Home',
  notices: 'Unread notices',
  userMenu: 'User menu',
  changePassword: 'Change password',
  version: 'Version',
  logout: 'Log out',
  closeAll: 'Close all',
  closeOthers: 'Close others',
  moreAreas: 'More',
  permissionLoadFailed: 'Could not load your permissions, please log in again',
  sessionLost: 'Logged out',
  stay: 'Stay on this page',
  loginAgain: 'Log in again',
};

export const password = {
  title: 'Change password',
  rawPassword: 'Old password',
  newPassword: 'New password',
  confirmPassword: 'Confirm new password',
  changed: 'Password changed, please log in again',
  mustChange: 'Please change your password before you continue',
};

export const pages = {
  later: {
    title: 'Coming in a later release',
    description: 'This area arrives in a later release of Meterdesk.',
  },
  notFound: { title: 'Page not found', description: 'The page you opened does not exist.' },
  forbidden: { title: 'No access' },
  noPermission: { title: 'No permission' },
  backHome: 'Back to home',
  loadFailed: 'This page could not be loaded, please reload',
  reload: 'Reload',
  version: { title: 'About Meterdesk', version: 'Version', appId: 'Application ID' },
};
