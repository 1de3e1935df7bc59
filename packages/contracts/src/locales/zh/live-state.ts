import type { liveState as en } from '../en/live-state';

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
