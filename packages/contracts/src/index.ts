export * as authApi from './auth/auth.api';
export {
  CaptchaSchema,
  type LoginRequest,
  LoginRequestSchema,
  type SessionUser,
  SessionUserSchema,
  UpdatePasswordRequestSchema,
} from './auth/auth.api';
export * from './common/constants';
export * from './common/entity';
export * from './common/envelope';
export * from './common/ids';
export * from './common/messages';
export * from './common/operation';
export * from './common/paging';
export * from './common/validation';
export * from './permissions';
export * as noticeApi from './system/notice.api';
export { type MqttConfig, MqttConfigSchema, noticeUnreadTopic } from './system/notice.api';
export * as resourceApi from './system/resource.api';
export * from './system/resource.schema';
