import type { LocaleMessages } from '../en';

export const readings: LocaleMessages['readings'] = {
  tab: '数据',
  day: '日期 (UTC)',
  dayHint: '日期按 UTC 计算，与电表冻结时间一致',
  shortcuts: { today: '今天', yesterday: '昨天', dayBefore: '前天', weekAgo: '一周前' },
  profile: {
    title: '负荷曲线',
    channel: '通道',
    received: '已收到 {{received}} / {{expected}} 个时段',
    empty: '该日无负荷曲线数据',
    compare: '对比',
    compareDays: { none: '仅当天', dayBefore: '对比前一天', weekBefore: '对比前 6 天' },
    time: '时间 (UTC)',
  },
  frozen: {
    title: '冻结数据',
    daily: '日冻结（截至该日的 31 天）',
    monthly: '月冻结（截至该日的 12 个月）',
    day: '日期 (UTC)',
    month: '月份 (UTC)',
    empty: '该范围内无冻结数据',
  },
  channels: {
    activeImport: '正向有功 (+A)',
    activeExport: '反向有功 (−A)',
    reactiveImport: '正向无功 (+R)',
    reactiveExport: '反向无功 (−R)',
    activePower: '有功功率',
    voltageL1: 'L1 电压',
    currentL1: 'L1 电流',
    activeImportT1: '+A 费率 1',
    activeImportT2: '+A 费率 2',
    activeImportT3: '+A 费率 3',
    activeImportT4: '+A 费率 4',
    maxDemand: '最大需量',
  },
};
