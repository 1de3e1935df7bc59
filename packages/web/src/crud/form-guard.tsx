import { Modal } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useBlocker, useLocation } from 'react-router';
import { normalizePath } from '@/app/routing/route-table';
import { useTabStore } from '@/app/tabs/tabs-context';
import { formDrafts } from './form-drafts';

/**
 * A form page's draft and the question before its work is lost. Switching tabs keeps what was typed
 * (`formDrafts`, one per open tab: a fresh open starts clean); leaving while its tab closes asks
 * first; a reload or a closed window asks the browser's question. `changed` records each change,
 * `saved` lets the form leave without asking.
 */
export function useFormGuard<D extends Record<string, unknown>>() {
  const { t } = useTranslation();
  const location = useLocation();
  const tabs = useTabStore();
  const tabKey = normalizePath(location.pathname);
  const draftKey = `${tabKey}${location.search}`;
  const saved = useRef(false);
  const [draft] = useState(() => {
    const open = tabs.getState().tabs.some((tab) => tab.key === tabKey);
    if (!open) formDrafts.drop(draftKey);
    return open ? (formDrafts.get(draftKey) as D | undefined) : undefined;
  });
  const [dirty, setDirty] = useState(draft !== undefined);

  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty &&
      !saved.current &&
      currentLocation.pathname !== nextLocation.pathname &&
      !tabs.getState().tabs.some((tab) => tab.key === tabKey),
  );
  useEffect(() => {
    if (!dirty) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const question = (
    <Modal
      open={blocker.state === 'blocked'}
      title={t('crud.unsavedTitle')}
      okText={t('crud.leave')}
      cancelText={t('crud.stay')}
      onOk={() => {
        formDrafts.drop(draftKey);
        blocker.proceed?.();
      }}
      onCancel={() => {
        // Staying undoes the close that led here.
        tabs.open(tabKey, draftKey);
        blocker.reset?.();
      }}
    >
      {t('crud.unsavedContent')}
    </Modal>
  );

  return {
    tabKey,
    /** What was typed before the user switched to another tab and back. */
    draft,
    changed: (values: D) => {
      setDirty(true);
      formDrafts.set(draftKey, values);
    },
    saved: () => {
      saved.current = true;
      formDrafts.drop(draftKey);
    },
    /** The "leave without saving?" dialog, rendered with the form. */
    question,
  };
}
