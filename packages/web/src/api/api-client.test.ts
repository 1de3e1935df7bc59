import { authApi, resourceApi } from '@meterdesk/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fail, ok, stubApi } from '@/test/api-stub';
import { ApiError, CLIENT_ERRORS, callApi, onUnauthorized } from './api-client';

const user = { username: 'admin', fullName: 'Administrator', language: 1, mustChangePassword: false };

afterEach(() => onUnauthorized(undefined));

describe('callApi', () => {
  it('POSTs JSON below /apis with the session cookie and answers `data` of a code 200 envelope', async () => {
    const api = stubApi({ [authApi.auth.path]: () => ok(user) });

    await expect(callApi(authApi.auth, {})).resolves.toEqual(user);

    const [url, init] = api.fetch.mock.calls[0] ?? [];
    expect(url).toBe('/apis/sysuser/auth');
    expect(init).toMatchObject({ method: 'POST', credentials: 'same-origin', body: '{}' });
    expect(new Headers(init?.headers).get('Content-Type')).toBe('application/json');
  });

  it('leaves undefined members out of the body', async () => {
    const api = stubApi({
      [resourceApi.getsysresourcelist.path]: () => ok({ list: [], total: 0, curPage: 1, pageSize: 10 }),
    });

    await callApi(resourceApi.getsysresourcelist, { curPage: 1, pageSize: 10, resourceName: undefined });

    expect(api.calls[0]?.body).toEqual({ curPage: 1, pageSize: 10 });
  });

  it('rejects a non-200 code with its message key and validation issues', async () => {
    const issues = [{ field: 'resourceName', key: 'existed', message: 'existed' }];
    stubApi({ [resourceApi.savesysresource.path]: () => fail(409, 'existed', { issues }) });

    const error = await callApi(resourceApi.savesysresource, {
      resourceName: 'x',
      resourceNameEn: 'x',
      resourceType: 1,
      resourceUri: '/x',
      parentId: '0',
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 409, msg: 'existed', issues });
  });

  it('treats code 200 in the body as failure when the body says otherwise', async () => {
    stubApi({ [authApi.getgifcode.path]: () => ({ status: 200, body: { code: 500, msg: 'interfaceError' } }) });

    await expect(callApi(authApi.getgifcode, {})).rejects.toMatchObject({ code: 500, msg: 'interfaceError' });
  });

  it('rejects data that does not match the response contract', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    stubApi({ [authApi.auth.path]: () => ok({ username: 'admin' }) });

    await expect(callApi(authApi.auth, {})).rejects.toMatchObject({ msg: 'interfaceError' });
  });

  it('reports an unreachable server as a network error', async () => {
    vi.stubGlobal('fetch', vi.fn().mockRejectedValue(new TypeError('Failed to fetch')));

    await expect(callApi(authApi.auth, {})).rejects.toMatchObject({ code: 0, msg: CLIENT_ERRORS.network });
  });

  it('hands a 401 to the unauthorized handler', async () => {
    const handler = vi.fn();
    onUnauthorized(handler);
    stubApi({ [resourceApi.getsysresourcetree.path]: () => fail(401, 'sessionExpired') });

    await expect(callApi(resourceApi.getsysresourcetree, {})).rejects.toMatchObject({ code: 401 });

    expect(handler).toHaveBeenCalledOnce();
    expect(handler.mock.calls[0]?.[0]).toMatchObject({ msg: 'sessionExpired' });
  });

  it('does not treat the 401 of the session probe and of login as a lost session', async () => {
    const handler = vi.fn();
    onUnauthorized(handler);
    stubApi({
      [authApi.auth.path]: () => fail(401, 'notLoggedIn'),
      [authApi.login.path]: () => fail(401, 'noPermission'),
    });

    await expect(callApi(authApi.auth, {})).rejects.toMatchObject({ code: 401 });
    await expect(
      callApi(authApi.login, { username: 'a', password: 'b', code: 'c', codeFill: 'd' }),
    ).rejects.toMatchObject({ code: 401, msg: 'noPermission' });

    expect(handler).not.toHaveBeenCalled();
  });
});
