-- Meters and POCs named their tariff as free text; from now on tariff_id references a tariff. Every
-- text moves to tariff_unmapped (the tariff table is new and empty) and the columns start anew, empty,
-- for the next migration to make them references. At each start the server maps the texts that name a
-- tariff (by name or id, any case) and counts the rest in its log (docs/operations.md).
INSERT INTO "tariff_unmapped" ("id", "meter_id", "text")
  SELECT replace(gen_random_uuid()::text, '-', ''), "id", trim("tariff_id") FROM "meter" WHERE trim("tariff_id") <> '';
--> statement-breakpoint
INSERT INTO "tariff_unmapped" ("id", "poc_id", "text")
  SELECT replace(gen_random_uuid()::text, '-', ''), "id", trim("tariff_id") FROM "poc" WHERE trim("tariff_id") <> '';
--> statement-breakpoint
-- A new empty column rather than an update of every row: instant on a million meters.
ALTER TABLE "meter" DROP COLUMN "tariff_id";
--> statement-breakpoint
ALTER TABLE "meter" ADD COLUMN "tariff_id" varchar(32);
--> statement-breakpoint
CREATE INDEX "meter_tariff_idx" ON "meter" USING btree ("tariff_id");
--> statement-breakpoint
ALTER TABLE "poc" DROP COLUMN "tariff_id";
--> statement-breakpoint
ALTER TABLE "poc" ADD COLUMN "tariff_id" varchar(32);
