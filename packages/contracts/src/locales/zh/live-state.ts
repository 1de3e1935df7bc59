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
  relayUnknown: '未知',
  showOnMap: '在地图上查看',
  search: {
    placeholder: '按编号或名称查找电表、用户或集中器',
    empty: '在您的电网范围内未找到',
    more: '匹配较多：请输入更多字符缩小范围',
  },
  placement: {
    consumer: '近似位置：所属用户的位置',
    dcu: '近似位置：所属集中器的位置',
    none: '不在地图上',
  },
  notOnMap: '{{label}} 不在地图上：它本身及其用户、集中器均无坐标',
  unplaced: {
    button_one: '{{shown}} 块电表无坐标',
    button_other: '{{shown}} 块电表无坐标',
    title: '无坐标的电表',
    hint: '这些电表本身没有坐标。若其用户或集中器有坐标，地图将电表放在该位置；其余电表在录入坐标前不在地图上。',
    place: '地图位置',
    show: '查看',
  },
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
