import type { LocaleMessages } from '../en';
import type { enScreens } from '../en/screens';
import { crud } from './crud';
import { resource } from './resource';
import { group, notice, org, role, settings, syslog, user } from './system';

export const zhScreens: Pick<LocaleMessages, keyof typeof enScreens> = {
  crud,
  resource,
  org,
  user,
  group,
  role,
  notice,
  settings,
  syslog,
};
