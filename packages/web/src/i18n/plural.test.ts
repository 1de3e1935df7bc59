import { afterEach, describe, expect, it } from 'vitest';
import '@/locales/screen-texts';
import { applyLanguage, i18n } from './i18n';

afterEach(() => applyLanguage('en'));

describe('counted nouns', () => {
  it.each([
    ['crud.total', '1 item in total', '2 items in total', '共 1 条'],
    ['outage.dcusDark', '1 DCU without supply', '3 DCUs without supply', '1 台集中器失电'],
    ['outage.node.consumers', '1 consumer', '0 consumers', '1 个用户'],
    [
      'analyticsClock.confirmSync',
      'Set the clock of 1 meter to the system time?',
      'Set the clock of 2 meters to the system time?',
      '将 1 块电表的时钟设为系统时间？',
    ],
  ])('%s takes its English plural form by count, Chinese as it was', (key, one, other, zh) => {
    expect(i18n.t(key, { count: 1 })).toBe(one);
    expect(i18n.t(key, { count: Number(/\d+/.exec(other)?.[0]) })).toBe(other);
    applyLanguage('zh');
    expect(i18n.t(key, { count: 1 })).toBe(zh);
  });
});
