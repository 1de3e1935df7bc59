import type { z } from 'zod';

/** Anyone may call it (login, captcha, the session check, static configuration). */
export const PUBLIC = 'public' as const;
/** Any logged-in user may call it (own password, own language, own permission tree). */
export const SESSION = 'session' as const;

/** Resources a caller must hold: any one of `anyOf`, and every one of `allOf` besides. */
export interface ResourceNeeds {
  anyOf: readonly string[];
  allOf?: readonly string[];
}

export type OperationAccess = typeof PUBLIC | typeof SESSION | ResourceNeeds;

export type OperatingType = 'add' | 'update' | 'delete' | 'login' | 'logout' | 'other';

export interface Operation<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  /** Path below `/apis`, exactly as spec §7 writes it. */
  path: string;
  /** The resources (resourceUri) the caller needs: one of a list grants access, unless `needsAll` asks for each. */
  access: OperationAccess;
  request: Req;
  /** Schema of `data` in the `{code, msg, data}` envelope. */
  response: Res;
  summary: string;
  tag: string;
  /** State-changing operations name their kind; each call writes an operation log entry. */
  audit?: OperatingType;
}

export function defineOperation<Req extends z.ZodType, Res extends z.ZodType>(
  op: Operation<Req, Res>,
): Operation<Req, Res> {
  return op;
}

export function needs(...resourceUris: string[]): OperationAccess {
  // One resource may serve two roles (OBIS's addObis is both the add and the edit page).
  return { anyOf: [...new Set(resourceUris)] };
}

/** Every one of the resource uris: a page's call that shows what another page explains (a dashboard card). */
export function needsAll(first: string, ...rest: string[]): ResourceNeeds {
  return { anyOf: [first], allOf: [...new Set(rest)].filter((uri) => uri !== first) };
}
