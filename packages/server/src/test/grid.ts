import { ROOT_PARENT_ID } from '@meterdesk/contracts';
import { newId } from '../db/ids';
import { powerGrid, sysGroup, sysUserGroup } from '../db/schema';
import type { TestApp } from './harness';

/** A grid node of its own under `parentId` (a root node without). */
export async function addGridNode(t: TestApp, code: string, parentId: string = ROOT_PARENT_ID): Promise<string> {
  const id = newId();
  await t.db.insert(powerGrid).values({ id, gridCode: code, gridName: `Grid ${code}`, parentId });
  return id;
}

/**
 * A user whose data scope is `gridIds` (through a user group on each node) holding the resources
 * `uris`; answers the user's session cookie.
 */
export async function loginGridUser(
  t: TestApp,
  username: string,
  gridIds: readonly string[],
  uris: readonly string[],
): Promise<string> {
  const roleId = await t.createRole(`${username} role`, uris);
  const userId = await t.createUser({ username, password: 'secret123', roleIds: [roleId] });
  for (const gridId of gridIds) {
    const groupId = newId();
    await t.db.insert(sysGroup).values({ id: groupId, groupName: `Group ${groupId}`, groupCode: groupId, gridId });
    await t.db.insert(sysUserGroup).values({ userId, groupId });
  }
  return t.login(username, 'secret123');
}
