import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import '@/i18n/i18n';
import { applyLanguage } from '@/i18n/i18n';

// Lazy pages compile their chunk on first use in a test run, and a busy machine stretches that and every
// lookup; one generous default here instead of numbers in each test (vitest.config.ts allows for it).
configure({ asyncUtilTimeout: 20_000 });

// jsdom lays nothing out and has no scrollIntoView; pages bring what appears into view with it. It answers a
// promise, as Chromium's does.
Element.prototype.scrollIntoView = vi.fn(() => Promise.resolve()) as unknown as Element['scrollIntoView'];

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  localStorage.clear();
  sessionStorage.clear();
  applyLanguage('en');
});
