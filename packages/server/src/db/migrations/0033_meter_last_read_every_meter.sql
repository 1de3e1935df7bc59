-- Every meter gets its row, null until it stores an interval, so never-read meters are rows a partial
-- index finds instead of meters without a row, which only a join over the whole archive finds.
ALTER TABLE "meter_last_read" ALTER COLUMN "last_day" DROP NOT NULL;--> statement-breakpoint
-- Rows of meters deleted since they were read: nothing refers to them, and the key below refuses them.
DELETE FROM "meter_last_read" l WHERE NOT EXISTS (SELECT 1 FROM "meter" m WHERE m."id" = l."meter_id");--> statement-breakpoint
ALTER TABLE "meter_last_read" ADD CONSTRAINT "meter_last_read_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "meter_last_read" ("meter_id", "last_day")
SELECT m."id", NULL FROM "meter" m ORDER BY m."id" ON CONFLICT DO NOTHING;--> statement-breakpoint
-- Written by hand: drizzle cannot declare a trigger. One statement per insert statement, however many
-- rows it holds, as meter_live_create (migration 0031).
CREATE FUNCTION "meter_last_read_create"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "meter_last_read" ("meter_id") SELECT "id" FROM "inserted" ORDER BY "id" ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "meter_last_read_create" AFTER INSERT ON "meter" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "meter_last_read_create"();--> statement-breakpoint
CREATE INDEX "meter_last_read_never_idx" ON "meter_last_read" USING btree ("meter_id") WHERE "meter_last_read"."last_day" is null;--> statement-breakpoint
CREATE INDEX "meter_last_read_day_idx" ON "meter_last_read" USING btree ("last_day","meter_id");
