import { API_BASE } from '@meterdesk/contracts';
import { vi } from 'vitest';

export interface StubAnswer {
  status?: number;
  body: unknown;
}

type Handler = (body: Record<string, unknown>) => StubAnswer | Promise<StubAnswer>;

export const ok = (data: unknown): StubAnswer => ({ body: { code: 200, msg: 'success', data } });
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
    const body = init.body ? (JSON.parse(String(init.body)) as Record<string, unknown>) : {};
    calls.push({ path, body, init });
    const handler = handlers[path];
    const answer = handler ? await handler(body) : fail(404, 'wrongApi');
    return new Response(JSON.stringify(answer.body), {
      status: answer.status ?? 200,
      headers: { 'Content-Type': 'application/json' },
    });
  });
  vi.stubGlobal('fetch', fetchStub);
  return { fetch: fetchStub, calls, callsTo: (path: string) => calls.filter((call) => call.path === path) };
}
