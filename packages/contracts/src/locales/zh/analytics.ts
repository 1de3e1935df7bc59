import type { analytics as en } from '../en/analytics';

/** 数据分析页面（分析套件）：共用文字，以及各页面的文字。 */
export const analytics: typeof en = {
  period: '时间段',
  day: '日',
  month: '月',
  summary: '汇总',
  chart: '图表',
  noData: '该时间段没有数据',
  chartFailed: '图表无法加载',
  openDetail: '详情',
  pickFromList: '请从列表中打开电表查看详情',
  backToList: '返回列表',
  fields: {
    gridId: '电网节点',
    gridName: '电网节点',
    dcuId: '集中器',
    dcuNo: '集中器',
    meterId: '电表',
    devAddr: '电表编号',
    consumerType: '用户类型',
    day: '日期',
    month: '月份',
  },
  consumption: {
    title: '用电数据',
    detailTitle: '电表 {{name}} 的日用电量',
    fields: {
      consumption: '用电量 (kWh)',
      daysKnown: '有数据的天数',
      dailyAverage: '日均用电量 (kWh)',
      demandMin: '最低需量 (kW)',
      demandAvg: '平均需量 (kW)',
      demandMax: '最高需量 (kW)',
      intervals: '已采集时段',
      meters: '电表数',
      peakDay: '用电最高日',
    },
  },
  consumptionDetail: { title: '日用电量' },
};
