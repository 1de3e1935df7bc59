import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/driver';
import { countRows } from '../../db/rows';
import { tariffUnmapped } from '../../db/schema';

/**
 * Maps the tariff texts meters and POCs held before tariffs were records (migration 0040 kept them in
 * `tariff_unmapped`) to the tariff each names, by name or id in any case, where the record has no
 * tariff yet; a text whose record has a tariff by now (mapped, or chosen since) leaves the table.
 * Answers how many texts still name no tariff. Run at every start and whenever a tariff is saved.
 */
export async function mapTariffTexts(tx: Executor): Promise<number> {
  const named = (text: SQL) => sql`(lower(t.tariff_name) = lower(${text}) or t.id = lower(${text}))`;
  await tx.execute(sql`
    update meter set tariff_id = t.id
    from tariff_unmapped u join tariff t on ${named(sql`u.text`)}
    where u.meter_id = meter.id and meter.tariff_id is null`);
  await tx.execute(sql`
    update poc set tariff_id = t.id
    from tariff_unmapped u join tariff t on ${named(sql`u.text`)}
    where u.poc_id = poc.id and poc.tariff_id is null`);
  await tx.execute(sql`
    delete from tariff_unmapped u
    where exists (select 1 from meter m where m.id = u.meter_id and m.tariff_id is not null)
       or exists (select 1 from poc p where p.id = u.poc_id and p.tariff_id is not null)`);
  return countRows(tx, tariffUnmapped, undefined);
}
