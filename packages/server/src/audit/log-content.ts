import { API_BASE, authApi, flattenResourceTree, LANGUAGE, settingsApi } from '@meterdesk/contracts';
import { translator } from '../i18n/labels';

/** How an operation entry is stored: the page or button it used, and the body with secrets masked. */
interface OperationContent {
  page: string;
  body: unknown;
}

export const operationContent = (page: string, body: unknown): string => JSON.stringify({ page, body });

/** Resource uri → its names from the root down, in each language. */
const TRAILS = (() => {
  const trails = new Map<string, { en: string[]; zh: string[] }>();
  for (const { seed, parentUri } of flattenResourceTree()) {
    const parent = parentUri ? trails.get(parentUri) : undefined;
    trails.set(seed.uri, { en: [...(parent?.en ?? []), seed.en], zh: [...(parent?.zh ?? []), seed.zh] });
  }
  return trails;
})();

/** A page's names from its area down ('System › Users › Edit'); undefined for a uri outside the tree. */
function pageTitle(uri: string, language: number): string | undefined {
  const trail = TRAILS.get(uri);
  return trail && (language === 2 ? trail.zh : trail.en).join(' › ');
}

/**
 * Calls a user makes on their own session or settings, which no page of the tree names (the log keeps
 * their path): their name, and what their body says where its values are codes (a language's).
 */
const SESSION_OPERATIONS: Record<
  string,
  { name: string; detail?: (body: Record<string, unknown>, t: (key: string) => string) => string }
> = {
  [`${API_BASE}${authApi.loginout.path}`]: { name: 'logout' },
  // Both passwords are masked in the log: nothing to say of them.
  [`${API_BASE}${authApi.updatepassword.path}`]: { name: 'changePassword', detail: () => '' },
  [`${API_BASE}${authApi.changelanguage.path}`]: {
    name: 'changeLanguage',
    detail: (body, t) => {
      const language = Object.entries(LANGUAGE).find(([, code]) => code === body.type)?.[0];
      return language ? t(`common.languages.${language}`) : '';
    },
  },
  [`${API_BASE}${settingsApi.updatesysUsersubscribeconf.path}`]: { name: 'subscription' },
};

/**
 * A body's details without the ids its names stand beside: a handler that names the record an id
 * points at (`gridName` beside `gridId`, `dcuNo` beside `dcuId`, its `auditNote`) is read by the name.
 */
function withoutNamedIds(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body;
  const entries = Object.entries(body);
  const keys = new Set(entries.map(([key]) => key));
  return Object.fromEntries(
    entries.filter(([key]) => {
      const stem = key.endsWith('Id') ? key.slice(0, -2) : undefined;
      return !stem || !(keys.has(`${stem}Name`) || keys.has(`${stem}No`));
    }),
  );
}

const MAX_DETAIL = 300;

function flatten(value: unknown, prefix: string, out: string[]): void {
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v !== 'object' || v === null)) out.push(`${prefix}: ${value.join(', ')}`);
    else {
      value.forEach((v, i) => {
        flatten(v, `${prefix}[${i + 1}]`, out);
      });
    }
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (value !== '' && value !== undefined) {
    out.push(`${prefix}: ${String(value)}`);
  }
}

function parseOperation(content: string): OperationContent | null {
  if (!content.startsWith('{"page":')) return null;
  try {
    const parsed = JSON.parse(content) as OperationContent;
    return typeof parsed.page === 'string' ? parsed : null;
  } catch {
    return null;
  }
}

/**
 * A log entry's content as an operator reads it, in their language: the page an operation used
 * ('System › Users › Edit — username: ann; status: disabled'), the page a visit opened ('System ›
 * Users /sysMGT/userMGT', whatever language the browser named it in), a login's outcome in words.
 * Entries written before this format, those of jobs, and visits of pages outside the tree read as stored.
 */
export function renderContent(
  entry: { logType: string; content: string; requestUrl: string },
  language: number,
): string {
  if (entry.logType === 'visit') {
    const title = pageTitle(entry.requestUrl, language);
    return title ? `${title} ${entry.requestUrl}` : entry.content;
  }
  const t = translator(language);
  if (entry.logType === 'login') {
    if (entry.content === 'success') return t('syslog.loginSucceeded');
    const text = t(`errors.${entry.content}`);
    return text === `errors.${entry.content}` ? entry.content : text;
  }
  const operation = entry.logType === 'operation' ? parseOperation(entry.content) : null;
  if (!operation) return entry.content;
  const session = SESSION_OPERATIONS[operation.page];
  const title =
    pageTitle(operation.page, language) ?? (session ? t(`syslog.sessionOperations.${session.name}`) : operation.page);
  const details: string[] = [];
  if (session?.detail) details.push(session.detail((operation.body ?? {}) as Record<string, unknown>, t));
  else flatten(withoutNamedIds(operation.body), '', details);
  const detail = details.filter(Boolean).join('; ');
  if (!detail) return title;
  return `${title} — ${detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL)}…` : detail}`;
}

/** What the content filter matches: the entry as it reads in either language, so a search finds what the screen shows. */
export const searchableContent = (entry: Parameters<typeof renderContent>[0]): string =>
  [...new Set([renderContent(entry, 1), renderContent(entry, 2)])].join('\n');
