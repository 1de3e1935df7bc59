ALTER TABLE "rollup_meter_day" ADD COLUMN "reporting" boolean DEFAULT true NOT NULL;--> statement-breakpoint
-- Rows computed before: whether their meter is expected to report now (the nearest known answer).
UPDATE "rollup_meter_day" r SET "reporting" = (m."status" IN (1, 2, 3) AND NOT m."virtual") FROM "meter" m WHERE m."id" = r."meter_id";--> statement-breakpoint
UPDATE "rollup_grid_day" g SET "intervals" = s."intervals", "meters_complete" = s."complete"
FROM (SELECT "grid_id", "day", coalesce(sum("intervals") FILTER (WHERE "reporting"), 0) AS "intervals",
  (count(*) FILTER (WHERE "reporting" AND "intervals" >= 96))::int AS "complete"
  FROM "rollup_meter_day" GROUP BY "grid_id", "day") s
WHERE g."grid_id" = s."grid_id" AND g."day" = s."day";--> statement-breakpoint
UPDATE "rollup_dcu_day" g SET "intervals" = s."intervals", "meters_complete" = s."complete"
FROM (SELECT "dcu_id", "day", coalesce(sum("intervals") FILTER (WHERE "reporting"), 0) AS "intervals",
  (count(*) FILTER (WHERE "reporting" AND "intervals" >= 96))::int AS "complete"
  FROM "rollup_meter_day" WHERE "dcu_id" IS NOT NULL GROUP BY "dcu_id", "day") s
WHERE g."dcu_id" = s."dcu_id" AND g."day" = s."day";
