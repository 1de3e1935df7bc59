import { render, screen } from '@testing-library/react';
import { DatePicker } from 'antd';
import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import { applyLanguage } from '@/i18n/i18n';
import { LocaleProvider } from './antd-root';

function openPicker() {
  render(
    <LocaleProvider>
      <DatePicker open defaultPickerValue={dayjs('2024-03-15')} />
    </LocaleProvider>,
  );
  const panel = document.querySelector('.ant-picker-dropdown');
  if (!(panel instanceof HTMLElement)) throw new Error('the picker did not open');
  return panel;
}

describe('date pickers', () => {
  it('are Chinese throughout in Chinese: buttons, months and weekdays', () => {
    applyLanguage('zh');
    const panel = openPicker();

    expect(panel.textContent).toContain('今天');
    expect(panel.querySelector('.ant-picker-month-btn')?.textContent).toBe('3月');
    const weekdays = [...panel.querySelectorAll('thead th')].map((th) => th.textContent);
    expect(weekdays).toEqual(['一', '二', '三', '四', '五', '六', '日']);
  });

  it('are English in English', () => {
    applyLanguage('en');
    const panel = openPicker();

    expect(screen.getByText('Today')).toBeTruthy();
    expect(panel.querySelector('.ant-picker-month-btn')?.textContent).toBe('Mar');
    expect([...panel.querySelectorAll('thead th')].map((th) => th.textContent)[0]).toBe('Su');
  });
});
