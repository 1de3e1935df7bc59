import { authApi, PASSWORD_MAX, PASSWORD_MIN } from '@meterdesk/contracts';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { App } from 'antd';
import { describe, expect, it, vi } from 'vitest';
import { applyLanguage, i18n } from '@/i18n/i18n';
import { fail, ok, stubApi } from '@/test/api-stub';
import { ChangePasswordModal } from './change-password-modal';
import { validatePasswordChange } from './password-change';

const t = i18n.t.bind(i18n);
const messagesOf = (values: Parameters<typeof validatePasswordChange>[0]) =>
  Object.fromEntries(validatePasswordChange(values, t).map((error) => [error.name[0], error.errors[0]]));

describe('validatePasswordChange', () => {
  it('requires all three fields', () => {
    expect(messagesOf({})).toEqual({
      rawPassword: 'This part is mandatory',
      newPassword: 'This part is mandatory',
      confirmPassword: 'This part is mandatory',
    });
  });

  it(`holds the new password to ${PASSWORD_MIN}-${PASSWORD_MAX} characters`, () => {
    const short = 'a'.repeat(PASSWORD_MIN - 1);
    const long = 'a'.repeat(PASSWORD_MAX + 1);
    expect(messagesOf({ rawPassword: 'old', newPassword: short, confirmPassword: short })).toEqual({
      newPassword: 'The password must be 6-18 characters',
    });
    expect(messagesOf({ rawPassword: 'old', newPassword: long, confirmPassword: long })).toEqual({
      newPassword: 'The password must be 6-18 characters',
    });
    const fits = 'a'.repeat(PASSWORD_MAX);
    expect(messagesOf({ rawPassword: 'old', newPassword: fits, confirmPassword: fits })).toEqual({});
  });

  it('wants the confirmation equal to the new password', () => {
    expect(messagesOf({ rawPassword: 'old', newPassword: 'secret1', confirmPassword: 'secret2' })).toEqual({
      confirmPassword: 'Inconsistent new password',
    });
  });

  it('speaks Chinese when the interface does', () => {
    applyLanguage('zh');
    expect(messagesOf({ rawPassword: 'old', newPassword: 'secret1', confirmPassword: 'other1' })).toEqual({
      confirmPassword: '两次输入的新密码不一致',
    });
  });
});

function renderModal() {
  const onChanged = vi.fn();
  render(
    <QueryClientProvider client={new QueryClient()}>
      <App>
        <ChangePasswordModal open prompted={false} onClose={() => undefined} onChanged={onChanged} />
      </App>
    </QueryClientProvider>,
  );
  return { onChanged, user: userEvent.setup() };
}

async function fill(user: ReturnType<typeof userEvent.setup>, raw: string, next: string, confirm: string) {
  await user.type(screen.getByTestId('password-raw'), raw);
  await user.type(screen.getByTestId('password-new'), next);
  await user.type(screen.getByTestId('password-confirm'), confirm);
  await user.click(screen.getByTestId('password-submit'));
}

describe('change password dialog', () => {
  it('shows the inconsistency on the confirmation and sends nothing', async () => {
    const api = stubApi({});
    const { user } = renderModal();

    await fill(user, 'old-secret', 'new-secret', 'new-secreT');

    const item = screen.getByTestId('password-confirm').closest('.ant-form-item') as HTMLElement;
    await waitFor(() => expect(within(item).getByText('Inconsistent new password')).toBeTruthy());
    expect(api.calls).toHaveLength(0);
  });

  it('warns with the server message when the old password is wrong', async () => {
    stubApi({ [authApi.updatepassword.path]: () => fail(400, 'rawPasswordWrong') });
    const { user, onChanged } = renderModal();

    await fill(user, 'wrong-old', 'new-secret', 'new-secret');

    expect(await screen.findByText('The old password is wrong')).toBeTruthy();
    expect(onChanged).not.toHaveBeenCalled();
  });

  it('sends old and new password and reports the change', async () => {
    const api = stubApi({ [authApi.updatepassword.path]: () => ok(null) });
    const { user, onChanged } = renderModal();

    await fill(user, 'old-secret', 'new-secret', 'new-secret');

    await waitFor(() => expect(onChanged).toHaveBeenCalledOnce());
    expect(api.calls[0]?.body).toEqual({ rawPassword: 'old-secret', newPassword: 'new-secret' });
  });
});
