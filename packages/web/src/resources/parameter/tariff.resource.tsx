import { TARIFF_RES, type Tariff, type TouRate, tariffApi, tariffEntity } from '@meterdesk/contracts';
import { Flex } from 'antd';
import { defineArchiveCrud } from '@/crud/archive-crud';
import type { FieldCell, Row } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';
import { CalendarEditor } from '@/pages/parameter/tariff/calendar-editor';
import { rateColor } from '@/pages/parameter/tariff/rate-colors';

/** The prices of a tariff by rate, as the preview and the legend name them. */
export const pricesOf = (tariff: Tariff): Record<TouRate, number> => ({
  1: tariff.price1,
  2: tariff.price2,
  3: tariff.price3,
  4: tariff.price4,
});

/** The rates a tariff uses, in their colours with their numbers, as the editor draws them. */
const RatesCell: FieldCell = ({ value }) => (
  <Flex gap={4} data-testid="cell-rates">
    {(Array.isArray(value) ? (value as number[]) : []).map((rate) => (
      <span
        key={rate}
        className="tou-rate-chip"
        style={{ background: rateColor(rate).fill, color: rateColor(rate).text }}
      >
        {rate}
      </span>
    ))}
  </Flex>
);

/** A row's view: its calendar drawn, read-only, with its prices. */
function TariffView({ row }: { row: Row }) {
  const tariff = row as Tariff;
  const prices = pricesOf(tariff);
  return <CalendarEditor value={tariff.calendar} prices={prices} price={(rate) => prices[rate]} />;
}

/**
 * spec §2: tariffs are added and edited on the hidden pages `Add` and `Edit`, with `Associated` listing
 * the meters and POCs using one. No detail page: a row's view draws its calendar in the drawer.
 */
export const tariffCrud = defineArchiveCrud({
  entity: tariffEntity,
  api: tariffApi,
  pages: { add: TARIFF_RES.add, edit: TARIFF_RES.edit, detail: `${TARIFF_RES.page}/detail` },
  rowActions: [
    {
      key: 'associated',
      label: 'tariff.associated.title',
      permission: TARIFF_RES.associated,
      to: (row) => `${TARIFF_RES.associated}?id=${encodeURIComponent(row.id)}`,
    },
  ],
  View: TariffView,
  cells: { rates: RatesCell },
});

/** The list; Add, Edit and Associated are pages of their own (`pages/parameter/tariff`). */
export const tariffPages = createCrudPages(tariffCrud);
