import type { LocaleMessages } from '../en';

export const obis: LocaleMessages['obis'] = {
  fields: {
    obis: 'OBIS 码',
    classId: '类 ID',
    attribute: '属性',
    description: '描述',
    unit: '单位',
    scaler: '换算系数',
    cgName: '采集项名称',
    channelOption: '通道选项',
    thresholdOption: '阈值选项',
    settingChannel: '设置通道',
    displayOption: '显示选项',
    readInstantly: '实时读取',
    readPeriodically: '定时读取',
    rateDataType: '费率数据类型',
    commonConfig: '通用配置',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  units: {
    7: '秒 s (7)',
    27: '瓦 W (27)',
    29: '乏 var (29)',
    30: '瓦时 Wh (30)',
    32: '乏时 varh (32)',
    33: '安 A (33)',
    35: '伏 V (35)',
    44: '赫兹 Hz (44)',
    255: '无 (255)',
  },
  help: {
    obis: 'A-B:C.D.E.F，每段 0-255，例如 1-0:1.8.0.255',
    scaler: '10 的幂：显示值 = 原始值 × 10^换算系数',
  },
  exportName: 'OBIS 项',
};
