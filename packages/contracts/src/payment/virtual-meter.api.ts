import { z } from 'zod';
import { METER_RES } from '../archive/meter.api';
import { field } from '../common/entity';
import { IdSchema } from '../common/ids';
import { defineOperation, needs } from '../common/operation';

/**
 * The register of a member a virtual meter takes: its active import, or its active export (a solar
 * plant's feed-in). The virtual meter's active import is the signed sum of its members' channels.
 */
export const MEMBER_CHANNELS = ['activeImport', 'activeExport'] as const;
export type MemberChannel = (typeof MEMBER_CHANNELS)[number];
/** Added (+1) or taken away (−1): a mall's main meter +1, each tenant −1. */
export const MEMBER_SIGNS = [1, -1] as const;
/** Members one virtual meter holds at most. */
export const MAX_VIRTUAL_MEMBERS = 200;

const label = (name: string) => `virtualMeter.fields.${name}`;

export const VirtualMemberSchema = z.strictObject({
  meterId: field(IdSchema, { label: label('meterId'), widget: 'select', lookup: 'meters' }),
  channel: field(z.enum(MEMBER_CHANNELS, 'invalidValue').default('activeImport'), {
    label: label('channel'),
    widget: 'select',
    options: MEMBER_CHANNELS.map((value) => ({ value, label: `virtualMeter.channels.${value}` })),
  }),
  sign: field(z.union([z.literal(1), z.literal(-1)], { error: 'invalidValue' }).default(1), {
    label: label('sign'),
    widget: 'select',
    options: MEMBER_SIGNS.map((value) => ({ value, label: `virtualMeter.signs.${value}` })),
  }),
});
export type VirtualMember = z.infer<typeof VirtualMemberSchema>;

export const VirtualMembersSaveSchema = z.strictObject({
  /** The virtual meter (a meter whose `virtual` is on). */
  id: IdSchema,
  members: z.array(VirtualMemberSchema).max(MAX_VIRTUAL_MEMBERS, 'tooLong'),
});
export type VirtualMembersSave = z.infer<typeof VirtualMembersSaveSchema>;

export const VirtualMembersSchema = z.object({
  virtual: z.boolean(),
  members: z.array(
    z.object({
      meterId: IdSchema,
      devAddr: z.string(),
      channel: z.enum(MEMBER_CHANNELS),
      sign: z.union([z.literal(1), z.literal(-1)]),
    }),
  ),
});
export type VirtualMembers = z.infer<typeof VirtualMembersSchema>;

export const virtualMeterApi = {
  members: defineOperation({
    path: '/meter/members',
    access: needs(METER_RES.detail, METER_RES.edit),
    tag: 'meter',
    summary:
      "meter: a virtual meter's members (meter, channel, sign), in the order saved; empty for a real meter; 404 outside the caller's scope",
    request: z.strictObject({ id: IdSchema }),
    response: VirtualMembersSchema,
  }),
  saveMembers: defineOperation({
    path: '/meter/members/save',
    access: needs(METER_RES.edit),
    tag: 'meter',
    summary:
      "meter: replaces a virtual meter's members. Refused naming the field: a real meter (notVirtualMeter), the meter itself among them (virtualContainsItself), a meter twice on one channel (virtualMemberTwice), a virtual member (virtualMemberVirtual: no nesting, so no cycle), a member outside the caller's scope (meterNotFound)",
    request: VirtualMembersSaveSchema,
    response: z.null(),
    audit: 'update',
  }),
};
