import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import '@/i18n/i18n';
import { applyLanguage } from '@/i18n/i18n';

// Lazy pages compile their chunk on first use in a test run, which takes longer than the default 1 s.
configure({ asyncUtilTimeout: 8000 });

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
  applyLanguage('en');
});
