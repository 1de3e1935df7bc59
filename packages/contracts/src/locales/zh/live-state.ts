import type { liveState as en, silentMeters as silentMetersEn } from '../en/live-state';

export const liveState: typeof en = {
  fields: {
    linkState: '在线状态',
    lastCommTime: '最后通信时间',
    relayState: '继电器',
    lastReading: '最新读数 (kWh)',
    lastReadTime: '最新读数时间',
  },
  linkStates: { online: '在线', offline: '离线' },
  relayStates: { 0: '断开', 1: '闭合', 2: '待合闸' },
};

export const silentMeters: typeof silentMetersEn = {
  groupByLabel: '分组方式',
  ungrouped: '电表明细',
  groupBy: { dcu: '集中器', moduleType: '模块类型', supplier: '供应商', grid: '电网节点' },
  none: {
    dcu: '直连电表（无集中器）',
    moduleType: '无模块',
    supplier: '无供应商',
    grid: '无电网节点',
  },
  meters: '电表数',
  showMeters: '查看电表',
  filtered: '仅',
  clearFilters: '显示全部',
  fields: { moduleType: '模块类型', supplierName: '供应商' },
  exportNames: { neverRead: '按{{group}}统计的从未采集电表', stopped: '按{{group}}统计的停止采集电表' },
  analyticsLink: '从未采集或停止采集的电表',
};
