import { z } from 'zod';
import { LANGUAGE } from '../common/constants';
import { defineOperation, PUBLIC, SESSION } from '../common/operation';
import { passwordText } from '../common/validation';
import { ResourceNodeSchema } from '../system/resource.schema';

const Empty = z.strictObject({}).describe('No fields');
const LanguageSchema = z.union([z.literal(LANGUAGE.en), z.literal(LANGUAGE.zh)]).describe('1 English, 2 Chinese');

export const LoginRequestSchema = z.strictObject({
  username: z.string('mandatory').trim().min(1, 'mandatory').max(50, 'tooLong'),
  password: z.string('mandatory').min(1, 'mandatory').max(128, 'tooLong'),
  code: z
    .string('captchaRequired')
    .min(1, 'captchaRequired')
    .max(64, 'tooLong')
    .describe('The captcha id that /sysuser/getgifcode answered in data.code'),
  codeFill: z
    .string('captchaRequired')
    .trim()
    .min(1, 'captchaRequired')
    .max(16, 'tooLong')
    .describe('The characters the user read from that captcha image'),
});
export type LoginRequest = z.infer<typeof LoginRequestSchema>;

export const SessionUserSchema = z.object({
  username: z.string(),
  fullName: z.string(),
  language: LanguageSchema,
  mustChangePassword: z.boolean(),
});
export type SessionUser = z.infer<typeof SessionUserSchema>;

export const login = defineOperation({
  path: '/sysuser/login',
  access: PUBLIC,
  tag: 'auth',
  summary: 'Log in; sets the HttpOnly session cookie. Code 401 msg noPermission when the user has no resource.',
  request: LoginRequestSchema,
  response: SessionUserSchema,
});

export const auth = defineOperation({
  path: '/sysuser/auth',
  access: PUBLIC,
  tag: 'auth',
  summary: 'Who is logged in: data.username, or code 401 without a valid session',
  request: Empty,
  response: SessionUserSchema,
});

/** Characters in a captcha's answer; the login form tells the user how many to type. */
export const CAPTCHA_LENGTH = 5;
/** The captcha image's size in pixels, which the login form keeps free before it has loaded. */
export const CAPTCHA_IMAGE = { width: 240, height: 80 } as const;

export const CaptchaSchema = z.object({
  code: z.string().describe('Captcha id; send it back as `code` with the login'),
  img: z.string().describe('data: URL of the PNG image the user reads; single use, valid 2 minutes'),
});

export const getgifcode = defineOperation({
  path: '/sysuser/getgifcode',
  access: PUBLIC,
  tag: 'auth',
  summary: 'A new captcha',
  request: Empty,
  response: CaptchaSchema,
});

export const loginout = defineOperation({
  path: '/sysuser/loginout',
  access: SESSION,
  tag: 'auth',
  summary: 'Log out: ends this session',
  request: Empty,
  response: z.null(),
  audit: 'logout',
});

export const UpdatePasswordRequestSchema = z.strictObject({
  rawPassword: z.string('mandatory').min(1, 'mandatory').max(128, 'tooLong'),
  newPassword: passwordText(),
});

export const updatepassword = defineOperation({
  path: '/sysuser/updatepassword',
  access: SESSION,
  tag: 'auth',
  summary: "Change the caller's password; ends all of the caller's sessions",
  request: UpdatePasswordRequestSchema,
  response: z.null(),
  audit: 'update',
});

export const checkpassword = defineOperation({
  path: '/sysuser/checkpassword',
  access: SESSION,
  tag: 'auth',
  summary: "Whether rawPassword is the caller's current password",
  request: z.strictObject({ rawPassword: z.string('mandatory').min(1, 'mandatory').max(128, 'tooLong') }),
  response: z.object({ correct: z.boolean() }),
});

export const changelanguage = defineOperation({
  path: '/sysuser/changelanguage',
  access: SESSION,
  tag: 'auth',
  summary: "Store the caller's interface language, applied at the next login",
  request: z.strictObject({ type: LanguageSchema }),
  response: z.null(),
  audit: 'update',
});

export const getuserresourcelist = defineOperation({
  path: '/sysresource/getuserresourcelist',
  access: SESSION,
  tag: 'auth',
  summary: "The caller's permitted resource tree: menus (types 0-2) and buttons (type 3)",
  request: Empty,
  response: z.array(ResourceNodeSchema),
});
