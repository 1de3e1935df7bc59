-- Events per meter and UTC day by code (rollup_meter_event_day, partitioned by month on "day" like
-- rollup_meter_day: hand-written, drizzle-kit cannot declare it), their sum per grid node and DCU
-- (rollup_grid_event_day), and who acknowledged an event. The new rollups are filled from the events
-- already stored, each meter's grid node and DCU as the archive holds them now; the months the rows
-- fall in get their partitions here, later ones come from readings/partitions.ts.
CREATE TABLE "rollup_grid_event_day" (
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"day" date NOT NULL,
	"code" integer NOT NULL,
	"level" smallint NOT NULL,
	"events" integer NOT NULL,
	"acknowledged" integer NOT NULL,
	"first_ts" timestamp with time zone NOT NULL,
	"last_ts" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_grid_event_day_key" UNIQUE NULLS NOT DISTINCT("grid_id","day","dcu_id","code","level")
);
--> statement-breakpoint
CREATE TABLE "rollup_meter_event_day" (
	"meter_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"code" integer NOT NULL,
	"level" smallint NOT NULL,
	"events" integer NOT NULL,
	"acknowledged" integer NOT NULL,
	"first_ts" timestamp with time zone NOT NULL,
	"last_ts" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_meter_event_day_meter_id_day_code_level_pk" PRIMARY KEY("meter_id","day","code","level")
) PARTITION BY RANGE ("day");
--> statement-breakpoint
ALTER TABLE "meter_event" ADD COLUMN "ack_by" varchar(32);--> statement-breakpoint
ALTER TABLE "meter_event" ADD COLUMN "ack_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "meter_event" ADD COLUMN "ack_remark" varchar(500);--> statement-breakpoint
CREATE INDEX "rollup_grid_event_day_dcu_idx" ON "rollup_grid_event_day" USING btree ("dcu_id","day");--> statement-breakpoint
CREATE INDEX "rollup_meter_event_day_grid_idx" ON "rollup_meter_event_day" USING btree ("grid_id","day");--> statement-breakpoint
CREATE INDEX "rollup_meter_event_day_dcu_idx" ON "rollup_meter_event_day" USING btree ("dcu_id","day");--> statement-breakpoint
CREATE INDEX "meter_event_unack_severe_idx" ON "meter_event" USING btree ("ts") WHERE "meter_event"."level" = 2 and "meter_event"."ack_at" is null;--> statement-breakpoint
DO $$
DECLARE
	month date;
BEGIN
	FOR month IN SELECT DISTINCT date_trunc('month', "ts" AT TIME ZONE 'UTC')::date FROM "meter_event" LOOP
		EXECUTE format('CREATE TABLE %I PARTITION OF "rollup_meter_event_day" FOR VALUES FROM (%L) TO (%L)',
			'rollup_meter_event_day_p' || to_char(month, 'YYYYMM'), month, (month + interval '1 month')::date);
	END LOOP;
END $$;--> statement-breakpoint
INSERT INTO "rollup_meter_event_day" ("meter_id", "day", "grid_id", "dcu_id", "code", "level", "events", "acknowledged", "first_ts", "last_ts")
SELECT e."meter_id", ("ts" AT TIME ZONE 'UTC')::date, m."grid_id", m."dcu_id", e."code", e."level", count(*), 0, min(e."ts"), max(e."ts")
FROM "meter_event" e JOIN "meter" m ON m."id" = e."meter_id"
GROUP BY 1, 2, 3, 4, 5, 6;--> statement-breakpoint
INSERT INTO "rollup_grid_event_day" ("grid_id", "dcu_id", "day", "code", "level", "events", "acknowledged", "first_ts", "last_ts")
SELECT "grid_id", "dcu_id", "day", "code", "level", sum("events"), sum("acknowledged"), min("first_ts"), max("last_ts")
FROM "rollup_meter_event_day"
GROUP BY "grid_id", "dcu_id", "day", "code", "level";
