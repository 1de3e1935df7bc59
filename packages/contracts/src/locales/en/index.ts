import { common, login, pages, password, shell } from './common';
import { errors } from './errors';
import type { enScreens } from './screens';

/** What /login and the shell frame show; it loads with the first chunk. */
export const enCore = { common, login, shell, password, pages, errors };

type Messages<T> = { [K in keyof T]: T[K] extends string ? string : Messages<T[K]> };
/** Every other locale has exactly the English key set; the compiler checks it, a test double-checks. */
export type LocaleMessages = Messages<typeof enCore & typeof enScreens>;
