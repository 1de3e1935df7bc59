import type { stsToken as en } from '../en/sts-token';

export const stsToken: typeof en = {
  token: '充值码',
  results: {
    accepted: '已接受',
    used: '该表已使用过此充值码',
    old: '充值码过旧，电表无法识别',
    corrupt: '充值码无效（输入错误或不属于此表）',
    overflow: '充值后余额将超过电表上限',
    unsupported: '不是充值类充值码',
  },
};
