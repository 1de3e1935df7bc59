import type { analyticsClock as en } from '../en/analytics-clock';

/** 时钟监测：电表时钟偏差及对时。 */
export const analyticsClock: typeof en = {
  title: '时钟监测',
  thresholdHelp: '最近一次时钟检查偏差（快或慢）不小于该秒数的电表',
  syncSelected: '对所选电表对时',
  confirmSync_one: '将 {{count}} 块电表的时钟设为系统时间？',
  confirmSync_other: '将 {{count}} 块电表的时钟设为系统时间？',
  offlineHint: '离线电表无法对时',
  empty: '没有时钟偏差达到 {{threshold}} 秒或以上的电表',
  fields: {
    deviationSeconds: '时钟偏差 (秒)',
    checkedAt: '检查时间',
    online: '在线',
    meters: '电表数',
    checked: '已检查的电表',
    beyond: '超出阈值',
    largest: '最大偏差 (秒)',
    band: '偏差',
    threshold: '阈值 (秒)',
  },
};
