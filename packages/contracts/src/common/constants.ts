export const APP_ID = 'P003';
export const APP_VERSION = 'V2.3.28';
export const API_BASE = '/apis';
export const REQUEST_TIMEOUT_MS = 60_000;
export const CHUNK_TIMEOUT_MS = 120_000;
export const DEFAULT_MAP_POSITION = { lat: 24.6, lng: 46.6 } as const;

/** spec §7 changelanguage: 1 English, 2 Chinese. English is the default (spec §1). */
export const LANGUAGE = { en: 1, zh: 2 } as const;
export type LanguageCode = (typeof LANGUAGE)[keyof typeof LANGUAGE];

export const SESSION_COOKIE = 'meterdesk_session';
