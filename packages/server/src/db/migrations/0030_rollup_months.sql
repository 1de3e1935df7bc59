-- The month rollups (readings/rollups.ts): a row per meter and month (its days summed, its billing freeze)
-- and per grid node and month. rollup_meter_month is partitioned by year like reading_monthly, so
-- retention drops it with the readings (hand-written: drizzle-kit cannot declare partitioning). The rows
-- are filled from the day rollups and the monthly frozen values already stored, never from raw readings.
-- rollup_grid_day gains meters_read (meters expected to report with an interval that day), filled likewise.
CREATE TABLE "rollup_grid_month" (
	"grid_id" varchar(32) NOT NULL,
	"month" date NOT NULL,
	"meters" integer NOT NULL,
	"consumption" bigint NOT NULL,
	"meters_with_consumption" integer NOT NULL,
	"frozen" integer NOT NULL,
	"energy" bigint,
	"energy_t1" bigint,
	"energy_t2" bigint,
	"energy_t3" bigint,
	"energy_t4" bigint,
	"energy_export" bigint,
	"energy_reactive_import" bigint,
	"energy_reactive_export" bigint,
	"max_demand" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_grid_month_grid_id_month_pk" PRIMARY KEY("grid_id","month")
);
--> statement-breakpoint
CREATE TABLE "rollup_meter_month" (
	"meter_id" varchar(32) NOT NULL,
	"month" date NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"consumption" bigint,
	"days_known" integer DEFAULT 0 NOT NULL,
	"intervals" integer DEFAULT 0 NOT NULL,
	"demand_max" integer,
	"frozen" boolean DEFAULT false NOT NULL,
	"energy" bigint,
	"energy_t1" bigint,
	"energy_t2" bigint,
	"energy_t3" bigint,
	"energy_t4" bigint,
	"energy_export" bigint,
	"energy_reactive_import" bigint,
	"energy_reactive_export" bigint,
	"max_demand" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_meter_month_meter_id_month_pk" PRIMARY KEY("meter_id","month")
) PARTITION BY RANGE ("month");
--> statement-breakpoint
ALTER TABLE "rollup_grid_day" ADD COLUMN "meters_read" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "rollup_grid_month_month_idx" ON "rollup_grid_month" USING btree ("month");--> statement-breakpoint
CREATE INDEX "rollup_meter_month_grid_idx" ON "rollup_meter_month" USING btree ("grid_id","month");--> statement-breakpoint
DO $$
DECLARE
	year date;
BEGIN
	FOR year IN SELECT DISTINCT date_trunc('year', "day")::date FROM "rollup_meter_day"
		UNION SELECT DISTINCT date_trunc('year', "month")::date FROM "reading_monthly" LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF "rollup_meter_month" FOR VALUES FROM (%L) TO (%L)',
			'rollup_meter_month_p' || to_char(year, 'YYYY'), year, (year + interval '1 year')::date);
	END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "rollup_meter_month" ("meter_id", "month", "grid_id", "dcu_id", "consumption", "days_known", "intervals",
	"demand_max", "frozen", "energy", "energy_t1", "energy_t2", "energy_t3", "energy_t4", "energy_export",
	"energy_reactive_import", "energy_reactive_export", "max_demand")
SELECT k."meter_id", k."month", m."grid_id", m."dcu_id", d."consumption", coalesce(d."days_known", 0),
	coalesce(d."intervals", 0), d."demand_max", f."meter_id" IS NOT NULL,
	f."active_import" - p."active_import", f."active_import_t1" - p."active_import_t1",
	f."active_import_t2" - p."active_import_t2", f."active_import_t3" - p."active_import_t3",
	f."active_import_t4" - p."active_import_t4", f."active_export" - p."active_export",
	f."reactive_import" - p."reactive_import", f."reactive_export" - p."reactive_export", f."max_demand"
FROM (SELECT "meter_id", date_trunc('month', "day")::date AS "month" FROM "rollup_meter_day"
		UNION SELECT "meter_id", "month" FROM "reading_monthly") k
JOIN "meter" m ON m."id" = k."meter_id"
LEFT JOIN (SELECT "meter_id", date_trunc('month', "day")::date AS "month", sum("consumption") AS "consumption",
		count("consumption")::int AS "days_known", sum("intervals")::int AS "intervals", max("demand_max") AS "demand_max"
	FROM "rollup_meter_day" GROUP BY 1, 2) d ON d."meter_id" = k."meter_id" AND d."month" = k."month"
LEFT JOIN "reading_monthly" f ON f."meter_id" = k."meter_id" AND f."month" = k."month"
LEFT JOIN "reading_monthly" p ON p."meter_id" = k."meter_id" AND p."month" = (k."month" - interval '1 month')::date;--> statement-breakpoint
INSERT INTO "rollup_grid_month" ("grid_id", "month", "meters", "consumption", "meters_with_consumption", "frozen",
	"energy", "energy_t1", "energy_t2", "energy_t3", "energy_t4", "energy_export", "energy_reactive_import",
	"energy_reactive_export", "max_demand")
SELECT "grid_id", "month", count(*)::int, coalesce(sum("consumption"), 0), count("consumption")::int,
	(count(*) FILTER (WHERE "frozen"))::int, sum("energy"), sum("energy_t1"), sum("energy_t2"), sum("energy_t3"),
	sum("energy_t4"), sum("energy_export"), sum("energy_reactive_import"), sum("energy_reactive_export"), max("max_demand")
FROM "rollup_meter_month" GROUP BY "grid_id", "month";--> statement-breakpoint
UPDATE "rollup_grid_day" g SET "meters_read" = r."meters_read"
FROM (SELECT "grid_id", "day", (count(*) FILTER (WHERE "reporting" AND "intervals" > 0))::int AS "meters_read"
	FROM "rollup_meter_day" GROUP BY "grid_id", "day") r
WHERE r."grid_id" = g."grid_id" AND r."day" = g."day";
