import { flattenResourceTree, RESOURCE_TREE, type ResourceNode, type ResourceSeed } from '@meterdesk/contracts';

const ids = new Map(
  flattenResourceTree(RESOURCE_TREE).map(({ seed }, n) => [seed.uri, n.toString(16).padStart(32, '0')]),
);

/**
 * The permitted tree the server would answer for a user whose roles grant exactly `uris`
 * (plus their ancestors, as the server keeps the tree connected).
 */
export function permittedTree(uris: readonly string[]): ResourceNode[] {
  const granted = (seed: ResourceSeed): boolean =>
    uris.includes(seed.uri) || seed.children.some((child) => granted(child));
  const build = (seeds: readonly ResourceSeed[], parentId: string): ResourceNode[] =>
    seeds.filter(granted).map((seed, order) => {
      const id = ids.get(seed.uri) ?? '0'.repeat(32);
      return {
        id,
        resourceName: seed.zh,
        resourceNameEn: seed.en,
        resourceType: seed.type,
        resourceUri: seed.uri,
        perms: '',
        icon: seed.icon ?? '',
        parentId,
        orderNum: order,
        children: build(seed.children, id),
      };
    });
  return build(RESOURCE_TREE, '0');
}

/** Every node of the spec tree, as an administrator sees it. */
export function fullTree(): ResourceNode[] {
  return permittedTree(flattenResourceTree(RESOURCE_TREE).map(({ seed }) => seed.uri));
}
