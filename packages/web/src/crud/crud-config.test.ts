import { describe, expect, it } from 'vitest';
import { groupCrud } from '@/resources/system/group.resource';
import { orgCrud } from '@/resources/system/org.resource';
import { userCrud } from '@/resources/system/user.resource';
import { describeField } from './crud-config';

describe('describeField', () => {
  it('keeps apart fields built on one shared schema (record ids)', () => {
    expect(describeField(userCrud, 'orgId')).toMatchObject({ label: 'user.fields.orgId', lookup: 'orgTree' });
    expect(describeField(groupCrud, 'gridId')).toMatchObject({ label: 'group.fields.gridId', lookup: 'gridTree' });
  });

  it('describes a group with its members and a create-only field from the create request', () => {
    const contact = describeField(orgCrud, 'extendInfo');
    expect(contact.widget).toBe('group');
    expect(contact.fields?.map((member) => [member.key, member.label])).toEqual([
      ['phoneUser', 'org.fields.phoneUser'],
      ['email', 'org.fields.email'],
      ['phone', 'org.fields.phone'],
      ['address', 'org.fields.address'],
    ]);
    expect(describeField(userCrud, 'password')).toMatchObject({ label: 'user.fields.password', widget: 'password' });
  });
});
