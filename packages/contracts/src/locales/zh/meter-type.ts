import type { LocaleMessages } from '../en';

export const meterType: LocaleMessages['meterType'] = {
  fields: {
    modelName: '型号名称',
    supplierId: '供应商',
    supplierName: '供应商',
    wiring: '接线方式',
    side: '计量侧',
    ratedVoltage: '额定电压 (V)',
    ratedCurrent: '额定电流 (A)',
    maxCurrent: '最大电流 (A)',
    accuracyClass: '准确度等级',
    commTypes: '通信方式',
    remark: '备注',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  wirings: {
    '1P2W': '单相两线 (1P2W)',
    '3P3W': '三相三线 (3P3W)',
    '3P4W': '三相四线 (3P4W)',
  },
  sides: { primary: '一次侧', secondary: '二次侧' },
  commTypes: {
    PLC: '电力线载波 (PLC)',
    RF: '微功率无线 (RF)',
    GPRS: 'GPRS',
    '4G': '4G',
    'NB-IoT': 'NB-IoT',
    Ethernet: '以太网',
    RS485: 'RS485',
  },
  exportName: '表型',
};
