import { Result } from 'antd';
import { useTranslation } from 'react-i18next';

/**
 * A user whose password an administrator set works only after changing it: the server refuses every
 * other call until then, so the shell shows no page, only the prompt that cannot be dismissed.
 */
export function PasswordGate() {
  const { t } = useTranslation();
  return <Result status="warning" title={t('password.mustChange')} data-testid="password-gate" />;
}
