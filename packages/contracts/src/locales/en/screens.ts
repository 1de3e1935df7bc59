import { crud } from './crud';
import { resource } from './resource';
import { group, notice, org, role, settings, syslog, user } from './system';

/**
 * The texts of the screens behind the login. Only the web's locales/screen-texts.ts (and the server, for exports) imports this (the shell
 * loads it), so none of it weighs on the login page.
 */
export const enScreens = { crud, resource, org, user, group, role, notice, settings, syslog };
