import { common, crud, login, pages, password, shell } from './common';
import { errors } from './errors';
import { resource } from './resource';

export const en = { common, login, shell, password, pages, crud, errors, resource };

type Messages<T> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };
/** Every other locale has exactly the English key set; the compiler checks it, a test double-checks. */
export type LocaleMessages = Messages<typeof en>;
