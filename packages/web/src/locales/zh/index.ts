import type { LocaleMessages } from '../en';
import { common, crud, login, pages, password, shell } from './common';
import { errors } from './errors';
import { resource } from './resource';

export const zh: LocaleMessages = { common, login, shell, password, pages, crud, errors, resource };
