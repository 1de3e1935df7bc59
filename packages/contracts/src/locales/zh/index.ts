import type { enCore, LocaleMessages } from '../en';
import { common, login, pages, password, shell } from './common';
import { errors } from './errors';

export const zhCore: Pick<LocaleMessages, keyof typeof enCore> = { common, login, shell, password, pages, errors };
