import { API_BASE } from '@meterdesk/contracts';
import { vi } from 'vitest';

export interface StubAnswer {
  status?: number;
  body: unknown;
  /** A file instead of the JSON envelope (an export's answer). */
  file?: { content: string; type: string; filename: string };
}

type Handler = (body: Record<string, unknown>) => StubAnswer | Promise<StubAnswer>;

export const ok = (data: unknown): StubAnswer => ({ body: { code: 200, msg: 'success', data } });
export const file = (content: string, type: string, filename: string): StubAnswer => ({
  body: null,
  file: { content, type, filename },
});
export const fail = (code: number, msg: string, data?: unknown): StubAnswer => ({
  status: code,
  body: { code, msg, data },
});

/** Replaces fetch with answers keyed by operation path (without `/apis`); unknown paths answer 404. */
export function stubApi(handlers: Record<string, Handler>) {
  const calls: { path: string; body: Record<string, unknown>; init: RequestInit }[] = [];
  const fetchStub = vi.fn(async (input: string | URL | Request, init: RequestInit = {}) => {
    const url = String(input);
    const path = url.startsWith(API_BASE) ? url.slice(API_BASE.length) : url;
    // An upload sends a file, not JSON: its handler reads the request from `init`.
    const body = typeof init.body === 'string' && init.body ? (JSON.parse(init.body) as Record<string, unknown>) : {};
    calls.push({ path, body, init });
    const handler = handlers[path];
    const answer = handler ? await handler(body) : fail(404, 'wrongApi');
    if (answer.file) {
      return new Response(answer.file.content, {
        headers: {
          'Content-Type': answer.file.type,
          'Content-Disposition': `attachment; filename="${answer.file.filename}"`,
        },
      });
    }
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchStub);
  return { fetch: fetchStub, calls, callsTo: (path: string) => calls.filter((call) => call.path === path) };
}
