CREATE TABLE "meter_clock" (
	"meter_id" varchar(32) PRIMARY KEY NOT NULL,
	"checked_at" timestamp with time zone NOT NULL,
	"deviation_seconds" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rollup_grid_registers" (
	"grid_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"meters" integer NOT NULL,
	"active_import" bigint,
	"active_import_t1" bigint,
	"active_import_t2" bigint,
	"active_import_t3" bigint,
	"active_import_t4" bigint,
	"active_export" bigint,
	"reactive_import" bigint,
	"reactive_export" bigint,
	CONSTRAINT "rollup_grid_registers_grid_id_day_pk" PRIMARY KEY("grid_id","day")
);
--> statement-breakpoint
CREATE INDEX "meter_clock_deviation_idx" ON "meter_clock" USING btree (abs("deviation_seconds"));--> statement-breakpoint
CREATE INDEX "rollup_grid_registers_day_idx" ON "rollup_grid_registers" USING btree ("day");--> statement-breakpoint
-- One day's frozen rows in meter order with their active import, read index-only by energy gain
-- (modules/analytics/energy.ts). Written by hand because drizzle cannot declare INCLUDE.
CREATE INDEX "reading_daily_day_idx" ON "reading_daily" USING btree ("day","meter_id") INCLUDE ("active_import");--> statement-breakpoint
-- What the readings already hold: each meter's latest clock check, and the registers of every grid
-- node's day the rollups have folded (the writer and the fold keep both from here on).
INSERT INTO "meter_clock" ("meter_id", "checked_at", "deviation_seconds")
  SELECT DISTINCT ON ("meter_id") "meter_id", "ts", "deviation_seconds" FROM "clock_check" ORDER BY "meter_id", "ts" DESC;--> statement-breakpoint
INSERT INTO "rollup_grid_registers" ("grid_id", "day", "meters", "active_import", "active_import_t1", "active_import_t2",
    "active_import_t3", "active_import_t4", "active_export", "reactive_import", "reactive_export")
  SELECT r."grid_id", r."day", count(*)::int, sum(d."active_import"), sum(d."active_import_t1"), sum(d."active_import_t2"),
    sum(d."active_import_t3"), sum(d."active_import_t4"), sum(d."active_export"), sum(d."reactive_import"),
    sum(d."reactive_export")
  FROM "rollup_meter_day" r JOIN "reading_daily" d ON d."meter_id" = r."meter_id" AND d."day" = r."day"
  GROUP BY r."grid_id", r."day";