import type { LocaleMessages } from '../en';

export const tariff: LocaleMessages['tariff'] = {
  fields: {
    tariffName: '费率名称',
    remark: '备注',
    price1: '费率 1 电价',
    price2: '费率 2 电价',
    price3: '费率 3 电价',
    price4: '费率 4 电价',
    calendar: '时段日历',
    seasonCount: '季节数',
    weekCount: '周表数',
    dayCount: '日时段表数',
    specialDayCount: '特殊日数',
    rates: '费率',
    createTime: '创建时间',
    updateTime: '更新时间',
  },
  associated: {
    title: '关联',
    meters: '电表',
    pocs: '计量点',
    devAddr: '表号',
    pocNo: '计量点',
    consumerName: '用户名称',
    gridName: '电网',
    syncStatus: '同步状态',
    online: '在线',
    takenTariffName: '电表上的费率',
    takenTime: '下发成功时间',
  },
  exportName: '费率',
};

export const tariffPush: LocaleMessages['tariffPush'] = {
  fields: {
    tariffId: '费率',
    tariffName: '费率',
    devList: '电表',
    activationTime: '生效时间',
    createdBy: '下发人',
    createTime: '下发时间',
    total: '电表数',
    done: '已应答',
    succeeded: '成功',
    failed: '失败',
  },
  event: {
    devAddr: '表号',
    state: '状态',
    resultCode: '结果',
    attempts: '下发次数',
    sendTime: '发送时间',
    answerTime: '应答时间',
  },
  states: { waiting: '等待中', done: '已应答' },
};
