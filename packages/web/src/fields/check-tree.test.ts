import { describe, expect, it } from 'vitest';
import type { LookupOption } from '@/resources/lookups';
import { checkState, indexTree, toggleChecked } from './check-tree';

// area ─┬─ page ─┬─ add
//       │        └─ delete
//       └─ other
// top (a second root)
const tree: LookupOption[] = [
  {
    value: 'area',
    title: 'Area',
    children: [
      {
        value: 'page',
        title: 'Page',
        children: [
          { value: 'add', title: 'Add' },
          { value: 'delete', title: 'Delete' },
        ],
      },
      { value: 'other', title: 'Other' },
    ],
  },
  { value: 'top', title: 'Top' },
];
const index = indexTree(tree);

describe('toggleChecked', () => {
  it('checks a leaf together with every ancestor, so the server serves it', () => {
    expect(toggleChecked([], 'delete', true, index)).toEqual(['area', 'page', 'delete']);
  });

  it('checks a node with its whole branch', () => {
    expect(toggleChecked([], 'page', true, index)).toEqual(['area', 'page', 'add', 'delete']);
  });

  it('unchecks a branch but keeps the ancestors: a page may be granted without its buttons', () => {
    const all = ['area', 'page', 'add', 'delete', 'other'];
    expect(toggleChecked(all, 'add', false, index)).toEqual(['area', 'page', 'delete', 'other']);
    expect(toggleChecked(all, 'page', false, index)).toEqual(['area', 'other']);
  });

  it('repairs a stored selection that lacks an ancestor and keeps ids the tree does not know', () => {
    expect(toggleChecked(['add', 'gone'], 'top', true, index)).toEqual(['area', 'page', 'add', 'top', 'gone']);
  });
});

describe('checkState', () => {
  it('shows a fully granted branch as checked', () => {
    expect(checkState(['area', 'page', 'add', 'delete', 'other'], index)).toEqual({
      checked: ['area', 'page', 'add', 'delete', 'other'],
      halfChecked: [],
    });
  });

  it('shows a granted node with part of its branch, and the way to a granted node, as half-checked', () => {
    expect(checkState(['area', 'page', 'delete'], index)).toEqual({
      checked: ['delete'],
      halfChecked: ['area', 'page'],
    });
    expect(checkState(['add'], index)).toEqual({ checked: ['add'], halfChecked: ['area', 'page'] });
  });

  it('sends exactly checked plus half-checked after the user checks a leaf', () => {
    const selected = toggleChecked([], 'add', true, index);
    const { checked, halfChecked } = checkState(selected, index);
    expect([...halfChecked, ...checked].sort()).toEqual([...selected].sort());
  });
});
