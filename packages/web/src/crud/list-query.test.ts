import dayjs from 'dayjs';
import { describe, expect, it } from 'vitest';
import type { FieldDescriptor, TimeRangeFilter } from './crud-config';
import { listRequest, readListQuery, sameQuery, writeListQuery } from './list-query';

const fields: FieldDescriptor[] = [
  { key: 'name', label: 'x.name', widget: 'text' },
  { key: 'level', label: 'x.level', widget: 'number' },
  {
    key: 'type',
    label: 'x.type',
    widget: 'select',
    options: [
      { value: 0, label: 'x.types.0' },
      { value: 1, label: 'x.types.1' },
    ],
  },
  {
    key: 'status',
    label: 'x.status',
    widget: 'select',
    options: [{ value: 'enabled', label: 'x.statuses.enabled' }],
  },
];
const sortable = new Set(['name', 'createTime']);
const read = (search: string, range?: TimeRangeFilter) =>
  readListQuery(new URLSearchParams(search), fields, sortable, range);

describe('readListQuery', () => {
  it('reads page, size, sort and declared filters, numbers as numbers', () => {
    expect(
      read('curPage=3&pageSize=20&sortField=name&sortOrder=descend&name=%20Ann%20&level=2&type=1&status=enabled'),
    ).toEqual({
      curPage: 3,
      pageSize: 20,
      sortField: 'name',
      sortOrder: 'descend',
      filters: { name: 'Ann', level: 2, type: 1, status: 'enabled' },
    });
  });

  it('falls back to page 1 of 10 for missing or broken paging', () => {
    for (const search of ['', 'curPage=0&pageSize=-5', 'curPage=1.5&pageSize=abc']) {
      expect(read(search), search).toMatchObject({ curPage: 1, pageSize: 10 });
    }
  });

  it('drops what is not declared: stray parameters, unknown sort fields, half a sort, blank or non-numeric values', () => {
    expect(read('tab=2&sortField=password&sortOrder=ascend&name=%20%20&level=two&type=x')).toEqual({
      curPage: 1,
      pageSize: 10,
      filters: {},
    });
    expect(read('sortField=name')).not.toHaveProperty('sortField');
    expect(read('sortField=name&sortOrder=sideways')).not.toHaveProperty('sortOrder');
  });

  describe('with a required time range', () => {
    const range: TimeRangeFilter = { label: 'x.time', startKey: 'startTime', endKey: 'endTime', maxDays: 31 };

    it('keeps a range the server takes', () => {
      const start = dayjs().subtract(2, 'day').format('YYYY-MM-DDTHH:mm:ssZ');
      const end = dayjs().subtract(1, 'day').format('YYYY-MM-DDTHH:mm:ssZ');
      const query = read(new URLSearchParams({ startTime: start, endTime: end }).toString(), range);

      expect(query.filters).toEqual({ startTime: start, endTime: end });
    });

    it('puts the last 7 days in place of a missing, reversed or too long range', () => {
      const longAgo = dayjs().subtract(90, 'day').format('YYYY-MM-DDTHH:mm:ssZ');
      const now = dayjs().format('YYYY-MM-DDTHH:mm:ssZ');
      for (const search of ['', `startTime=${now}&endTime=${longAgo}`, `startTime=${longAgo}&endTime=${now}`]) {
        const { startTime, endTime } = read(new URLSearchParams(search).toString(), range).filters;
        const days = dayjs(String(endTime)).diff(dayjs(String(startTime)), 'day', true);
        expect(Math.round(days), search).toBe(7);
      }
    });
  });
});

describe('writeListQuery', () => {
  it('writes only what differs from the defaults', () => {
    expect(writeListQuery({ curPage: 1, pageSize: 10, filters: {} }).toString()).toBe('');
    expect(
      writeListQuery({
        curPage: 2,
        pageSize: 50,
        sortField: 'name',
        sortOrder: 'ascend',
        filters: { name: 'Ann', type: 0, status: '' },
      }).toString(),
    ).toBe('name=Ann&type=0&curPage=2&pageSize=50&sortField=name&sortOrder=ascend');
  });

  it('round-trips through the URL', () => {
    const query = {
      curPage: 4,
      pageSize: 20,
      sortField: 'createTime',
      sortOrder: 'descend' as const,
      filters: { name: 'a&b=c', level: 3 },
    };

    expect(read(writeListQuery(query).toString())).toEqual(query);
  });
});

describe('listRequest', () => {
  it('sends paging always, the sort only when complete, and the filters beside them', () => {
    expect(listRequest({ curPage: 1, pageSize: 10, filters: { type: 0 } })).toEqual({
      type: 0,
      curPage: 1,
      pageSize: 10,
    });
    expect(listRequest({ curPage: 2, pageSize: 10, sortField: 'name', filters: {} })).toEqual({
      curPage: 2,
      pageSize: 10,
    });
    expect(listRequest({ curPage: 2, pageSize: 10, sortField: 'name', sortOrder: 'descend', filters: {} })).toEqual({
      curPage: 2,
      pageSize: 10,
      sortField: 'name',
      sortOrder: 'descend',
    });
  });
});

describe('sameQuery', () => {
  it('tells a query asking for the same rows, whatever the order of its filters', () => {
    const a = { curPage: 1, pageSize: 10, filters: { name: 'x', type: 1 } };

    expect(sameQuery(a, { ...a, filters: { type: 1, name: 'x' } })).toBe(true);
    expect(sameQuery(a, { ...a, curPage: 2 })).toBe(false);
    expect(sameQuery(a, { ...a, filters: { name: 'x' } })).toBe(false);
  });
});
