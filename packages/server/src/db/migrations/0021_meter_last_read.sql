CREATE TABLE "meter_last_read" (
	"meter_id" varchar(32) PRIMARY KEY NOT NULL,
	"last_day" date NOT NULL
);
--> statement-breakpoint
DROP INDEX "rollup_meter_day_read_idx";--> statement-breakpoint
INSERT INTO "meter_last_read" ("meter_id", "last_day")
SELECT "meter_id", max("day") FROM "rollup_meter_day" WHERE "intervals" > 0 GROUP BY "meter_id";
