export * from './analytics/clock';
export * from './analytics/consumption';
export * from './analytics/energy';
export * from './analytics/kit';
export * from './analytics/load-profile';
export * from './analytics/meter-events';
export * from './analytics/monthly-billing';
export * from './analytics/monthly-consumption';
export * from './analytics/network';
export * from './archive/archive-api';
export * from './archive/archive-import';
export * from './archive/consumer.api';
export * from './archive/consumer.schema';
export * from './archive/dcu.api';
export * from './archive/dcu.schema';
export * from './archive/enums';
export * from './archive/gis.api';
export * from './archive/gis-find.api';
export * from './archive/grid.api';
export * from './archive/grid.schema';
export * from './archive/live-state';
export * from './archive/meter.api';
export * from './archive/meter.schema';
export * from './archive/meter-type.api';
export * from './archive/meter-type.schema';
export * from './archive/module.api';
export * from './archive/module.schema';
export * from './archive/pickers';
export * from './archive/poc.api';
export * from './archive/poc.schema';
export * from './archive/supplier.api';
export * from './archive/supplier.schema';
export * as authApi from './auth/auth.api';
export {
  CAPTCHA_IMAGE,
  CAPTCHA_LENGTH,
  CaptchaSchema,
  type LoginRequest,
  LoginRequestSchema,
  type SessionUser,
  SessionUserSchema,
  UpdatePasswordRequestSchema,
} from './auth/auth.api';
export * from './collection/devices';
export * from './collection/readings.api';
export * from './collection/run.api';
export * from './collection/schedule';
export * from './collection/task.api';
export * from './collection/task.schema';
export * from './collection/task-analysis.api';
export * from './collection/task-analysis.schema';
export * from './collection/task-form';
export * from './collection/template.api';
export * from './collection/template.schema';
export * from './common/constants';
export * from './common/entity';
export * from './common/envelope';
export * from './common/ids';
export * from './common/list';
export * from './common/messages';
export * from './common/operation';
export * from './common/options';
export * from './common/paging';
export * from './common/topics';
export * from './common/validation';
export * from './dashboard/dashboard.api';
export * from './device/catalogue';
export * from './device/fleet';
export * from './device/live';
export * from './device/protocol';
export * from './operations/operations';
export * from './operations/plan.api';
export * from './outage/outage.api';
export * from './parameter/event-definition.api';
export * from './parameter/event-definition.schema';
export * from './parameter/firmware.api';
export * from './parameter/firmware.schema';
export * from './parameter/firmware-image';
export * from './parameter/obis.api';
export * from './parameter/obis.schema';
export * from './parameter/obis-value';
export * from './parameter/param-template.api';
export * from './parameter/param-template.schema';
export * from './parameter/tariff.api';
export * from './parameter/tariff.schema';
export * from './parameter/tou-calendar';
export * from './payment/billing-report.api';
export * from './payment/billing-rule.api';
export * from './payment/billing-rule.schema';
export * from './payment/prepaid.api';
export * from './payment/virtual-meter.api';
export * from './permissions';
export * from './report/collection-report.api';
export * as groupApi from './system/group.api';
export * from './system/group.schema';
export * as noticeApi from './system/notice.api';
export {
  type MqttConfig,
  MqttConfigSchema,
  type Notice,
  NoticeSchema,
  type NoticeSend,
  NoticeSendSchema,
  noticeBatchEntity,
  noticeEntity,
} from './system/notice.api';
export * as orgApi from './system/org.api';
export * from './system/org.schema';
export * as resourceApi from './system/resource.api';
export * from './system/resource.schema';
export * as roleApi from './system/role.api';
export * from './system/role.schema';
export type { SmtpConfSave, SubscribeFlags, TariffConfig } from './system/settings.api';
export * as settingsApi from './system/settings.api';
export * as syslogApi from './system/syslog.api';
export { type SystemLog, type SystemLogQuery, systemLogEntity } from './system/syslog.api';
export * as userApi from './system/user.api';
export * from './system/user.schema';
