import { syslogApi } from '@meterdesk/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { onUnauthorized } from './api-client';
import { downloadFile, filenameOf } from './download';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const body = { startTime: '2024-05-01T00:00:00+08:00', endTime: '2024-05-02T00:00:00+08:00' };

function answer(response: Response) {
  const fetchStub = vi.fn(async (_url: string, _init?: RequestInit) => response);
  vi.stubGlobal('fetch', fetchStub);
  return fetchStub;
}

afterEach(() => {
  onUnauthorized(undefined);
  vi.restoreAllMocks();
});

describe('downloadFile', () => {
  it('posts the filters and hands the workbook to the browser under the server-given name', async () => {
    const fetchStub = answer(
      new Response(new Blob(['PK-workbook'], { type: XLSX }), {
        headers: {
          'Content-Type': XLSX,
          'Content-Disposition': `attachment; filename="system-log.xlsx"; filename*=UTF-8''%E7%B3%BB%E7%BB%9F%E6%97%A5%E5%BF%97.xlsx`,
        },
      }),
    );
    const created = vi.spyOn(URL, 'createObjectURL').mockReturnValue('blob:workbook');
    vi.spyOn(URL, 'revokeObjectURL').mockReturnValue(undefined);
    const clicked: { href: string; download: string }[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push({ href: this.href, download: this.download });
    });

    const file = await downloadFile(syslogApi.exportsystemlog, { ...body, logType: undefined });

    const [url, init] = fetchStub.mock.calls[0] ?? [];
    expect(url).toBe('/apis/systemlog/exportsystemlog');
    expect(JSON.parse(String(init?.body))).toEqual(body);
    expect(file.filename).toBe('系统日志.xlsx');
    expect(await file.blob.text()).toBe('PK-workbook');
    expect(created).toHaveBeenCalledWith(file.blob);
    expect(clicked).toEqual([{ href: 'blob:workbook', download: '系统日志.xlsx' }]);
    expect(document.querySelector('a[download]')).toBeNull();
  });

  it('reads a refusal as the JSON envelope it is and saves nothing', async () => {
    answer(
      new Response(JSON.stringify({ code: 400, msg: 'timeRangeTooLong', data: null }), {
        status: 400,
        headers: { 'Content-Type': 'application/json' },
      }),
    );
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click');

    await expect(downloadFile(syslogApi.exportsystemlog, body)).rejects.toMatchObject({
      code: 400,
      msg: 'timeRangeTooLong',
    });
    expect(click).not.toHaveBeenCalled();
  });

  it('ends the session on a 401 like any other call', async () => {
    answer(
      new Response(JSON.stringify({ code: 401, msg: 'sessionExpired' }), {
        status: 401,
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
      }),
    );
    const handler = vi.fn();
    onUnauthorized(handler);

    await expect(downloadFile(syslogApi.exportsystemlog, body)).rejects.toMatchObject({ code: 401 });
    expect(handler).toHaveBeenCalledOnce();
  });
});

describe('filenameOf', () => {
  it('prefers the encoded name, then the plain one, then the fallback', () => {
    expect(filenameOf(`attachment; filename*=UTF-8''a%20b.xlsx`, 'x')).toBe('a b.xlsx');
    expect(filenameOf('attachment; filename="log.xlsx"', 'x')).toBe('log.xlsx');
    expect(filenameOf('attachment; filename=log.xlsx', 'x')).toBe('log.xlsx');
    expect(filenameOf('attachment', 'fallback')).toBe('fallback');
    expect(filenameOf(null, 'fallback')).toBe('fallback');
  });
});
