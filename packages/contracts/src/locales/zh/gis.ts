import type { LocaleMessages } from '../en';

export const gis: LocaleMessages['gis'] = {
  fields: {
    kinds: '显示',
    gridId: '所属电网',
    meterStatus: '电表状态',
  },
  kinds: { consumer: '用户', meter: '电表', dcu: '集中器' },
  kind: { consumer: '用户', meter: '电表', dcu: '集中器' },
  popup: {
    kind: '类型',
    status: '状态',
    protected: '生命保障 / 医疗',
    regular: '普通供电',
    openDetail: '查看详情',
  },
  legend: {
    title: '图例',
    cluster: '聚合点：点击放大',
    meters: '电表状态',
  },
  clusterTitle: '{{count}} 个{{kind}}：点击放大',
  inView: '视野内 {{count}} 个',
  loading: '地图加载中…',
  empty: '视野内没有对象：请移动地图、缩小或修改筛选条件',
  tilesOffline: '无法访问地图瓦片：位置绘制在空白底图上',
  noTiles: '未配置地图瓦片：位置绘制在空白底图上',
};
