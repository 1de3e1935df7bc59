import { Button, Modal } from 'antd';
import { useTranslation } from 'react-i18next';
import { messageText } from '@/i18n/message-text';

/**
 * spec §8: a lost session offers a choice. Staying keeps the page as it is (a half-typed form can be
 * copied); any further call asks again. Logging in again returns to this page afterwards.
 */
export function SessionLostDialog({
  reason,
  onStay,
  onLogin,
}: {
  reason: string;
  onStay: () => void;
  onLogin: () => void;
}) {
  const { t } = useTranslation();
  return (
    <Modal
      open
      title={t('shell.sessionLost')}
      closable={false}
      maskClosable={false}
      keyboard={false}
      data-testid="session-lost"
      footer={[
        <Button key="stay" data-testid="session-stay" onClick={onStay}>
          {t('shell.stay')}
        </Button>,
        <Button key="login" type="primary" data-testid="session-login" onClick={onLogin}>
          {t('shell.loginAgain')}
        </Button>,
      ]}
    >
      {messageText(t, reason)}
    </Modal>
  );
}
