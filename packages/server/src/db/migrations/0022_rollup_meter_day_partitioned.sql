-- rollup_meter_day holds a row per meter per day (365 M a year at a million meters): it is partitioned
-- by month like the readings tables, so a report's days touch their months only and retention drops a
-- month whole (readings/partitions.ts makes the partitions ahead and on demand, retention.ts drops them).
-- Hand-written: drizzle-kit cannot declare partitioning. The rows move to the new table in the same
-- transaction, one partition per month they fall in.
ALTER TABLE "rollup_meter_day" RENAME TO "rollup_meter_day_unpartitioned";--> statement-breakpoint
ALTER TABLE "rollup_meter_day_unpartitioned" RENAME CONSTRAINT "rollup_meter_day_meter_id_day_pk" TO "rollup_meter_day_unpartitioned_pk";--> statement-breakpoint
ALTER INDEX "rollup_meter_day_grid_idx" RENAME TO "rollup_meter_day_unpartitioned_grid_idx";--> statement-breakpoint
CREATE TABLE "rollup_meter_day" (
	LIKE "rollup_meter_day_unpartitioned" INCLUDING DEFAULTS,
	CONSTRAINT "rollup_meter_day_meter_id_day_pk" PRIMARY KEY("meter_id","day")
) PARTITION BY RANGE ("day");--> statement-breakpoint
CREATE INDEX "rollup_meter_day_grid_idx" ON "rollup_meter_day" USING btree ("grid_id","day");--> statement-breakpoint
DO $$
DECLARE
	month date;
BEGIN
	FOR month IN SELECT DISTINCT date_trunc('month', "day")::date FROM "rollup_meter_day_unpartitioned" LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF "rollup_meter_day" FOR VALUES FROM (%L) TO (%L)',
			'rollup_meter_day_p' || to_char(month, 'YYYYMM'), month, (month + interval '1 month')::date);
	END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "rollup_meter_day" SELECT * FROM "rollup_meter_day_unpartitioned";--> statement-breakpoint
DROP TABLE "rollup_meter_day_unpartitioned";
