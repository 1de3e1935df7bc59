DROP INDEX "meter_last_read_never_idx";--> statement-breakpoint
DROP INDEX "meter_last_read_day_idx";--> statement-breakpoint
ALTER TABLE "meter_last_read" ADD COLUMN "grid_id" varchar(32);--> statement-breakpoint
ALTER TABLE "meter_last_read" ADD COLUMN "dev_addr" varchar(50);--> statement-breakpoint
ALTER TABLE "meter_last_read" ADD COLUMN "reporting" boolean;--> statement-breakpoint
-- Written by hand from here: the meters' own values, then the triggers that keep them. "Reporting" is
-- REPORTING_METER_STATUSES (contracts) and not virtual, as the collection report's other queries say it;
-- silent-meters.test.ts checks each status against that list.
CREATE FUNCTION "meter_reporting"("status" smallint, "virtual" boolean) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN "status" IN (1, 2, 3) AND NOT "virtual";--> statement-breakpoint
UPDATE "meter_last_read" l SET "grid_id" = m."grid_id", "dev_addr" = m."dev_addr",
  "reporting" = meter_reporting(m."status", m."virtual")
FROM "meter" m WHERE m."id" = l."meter_id";--> statement-breakpoint
ALTER TABLE "meter_last_read" ALTER COLUMN "grid_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "meter_last_read" ALTER COLUMN "dev_addr" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "meter_last_read" ALTER COLUMN "reporting" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "meter_last_read_never_idx" ON "meter_last_read" USING btree ("dev_addr","meter_id") WHERE "meter_last_read"."last_day" is null and "meter_last_read"."reporting";--> statement-breakpoint
CREATE INDEX "meter_last_read_day_idx" ON "meter_last_read" USING btree ("last_day","meter_id") WHERE "meter_last_read"."reporting";--> statement-breakpoint
CREATE OR REPLACE FUNCTION "meter_last_read_create"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "meter_last_read" ("meter_id", "grid_id", "dev_addr", "reporting")
  SELECT "id", "grid_id", "dev_addr", meter_reporting("status", "virtual") FROM "inserted" ORDER BY "id"
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- One statement per update statement of meter, writing only the rows whose copy changed. They are locked
-- first in key order, as the rollup fold locks them, so a bulk edit of meters and a fold cannot deadlock.
CREATE FUNCTION "meter_last_read_follow"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "meter_last_read" l JOIN "updated" u ON u."id" = l."meter_id"
  WHERE (l."grid_id", l."dev_addr", l."reporting")
    IS DISTINCT FROM (u."grid_id", u."dev_addr", meter_reporting(u."status", u."virtual"))
  ORDER BY l."meter_id" FOR UPDATE OF l;
  UPDATE "meter_last_read" l
  SET "grid_id" = u."grid_id", "dev_addr" = u."dev_addr", "reporting" = meter_reporting(u."status", u."virtual")
  FROM "updated" u
  WHERE u."id" = l."meter_id" AND (l."grid_id", l."dev_addr", l."reporting")
    IS DISTINCT FROM (u."grid_id", u."dev_addr", meter_reporting(u."status", u."virtual"));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "meter_last_read_follow" AFTER UPDATE ON "meter" REFERENCING NEW TABLE AS "updated"
  FOR EACH STATEMENT EXECUTE FUNCTION "meter_last_read_follow"();
