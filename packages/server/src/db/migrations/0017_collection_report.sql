CREATE TABLE "rollup_dcu_day" (
	"dcu_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"meters" integer NOT NULL,
	"intervals" bigint NOT NULL,
	"meters_complete" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_dcu_day_dcu_id_day_pk" PRIMARY KEY("dcu_id","day")
);
--> statement-breakpoint
ALTER TABLE "rollup_grid_day" ADD COLUMN "meters_complete" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "rollup_meter_day" ADD COLUMN "dcu_id" varchar(32);--> statement-breakpoint
CREATE INDEX "rollup_meter_day_read_idx" ON "rollup_meter_day" USING btree ("meter_id","day") WHERE "rollup_meter_day"."intervals" > 0;--> statement-breakpoint
-- Rows rolled up before this migration: their DCU is the meter's DCU now (the nearest the archive
-- knows), and the new figures come from the rollup rows themselves, never from raw readings.
UPDATE "rollup_meter_day" r SET "dcu_id" = m."dcu_id" FROM "meter" m WHERE m."id" = r."meter_id" AND m."dcu_id" IS NOT NULL;--> statement-breakpoint
UPDATE "rollup_grid_day" g SET "meters_complete" = c."complete" FROM (
	SELECT "grid_id", "day", count(*)::int AS "complete" FROM "rollup_meter_day" WHERE "intervals" >= 96 GROUP BY "grid_id", "day"
) c WHERE c."grid_id" = g."grid_id" AND c."day" = g."day";--> statement-breakpoint
INSERT INTO "rollup_dcu_day" ("dcu_id", "day", "meters", "intervals", "meters_complete")
	SELECT "dcu_id", "day", count(*)::int, sum("intervals"), (count(*) FILTER (WHERE "intervals" >= 96))::int
	FROM "rollup_meter_day" WHERE "dcu_id" IS NOT NULL GROUP BY "dcu_id", "day";
