CREATE TABLE "meter_live" (
	"meter_id" varchar(32) PRIMARY KEY NOT NULL,
	"online" boolean DEFAULT false NOT NULL,
	"last_comm_at" timestamp with time zone,
	"relay_state" smallint,
	"relay_at" timestamp with time zone,
	"last_read_at" timestamp with time zone,
	"last_read_wh" bigint
);
--> statement-breakpoint
ALTER TABLE "meter_live" ADD CONSTRAINT "meter_live_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "meter_live_online_idx" ON "meter_live" USING btree ("online","meter_id");--> statement-breakpoint
CREATE INDEX "meter_live_relay_idx" ON "meter_live" USING btree ("relay_state","meter_id");--> statement-breakpoint
CREATE INDEX "meter_live_last_comm_idx" ON "meter_live" USING btree (coalesce("last_comm_at", '-infinity'::timestamptz),"meter_id");--> statement-breakpoint
CREATE INDEX "meter_unplaced_idx" ON "meter" USING btree ("dev_addr","id") WHERE "meter"."latitude" is null or "meter"."longitude" is null;--> statement-breakpoint
-- Every meter has its live row from its insert on (written by hand: drizzle cannot declare a trigger).
-- One statement per insert statement, however many rows it holds: an import's COPY pays one insert.
CREATE FUNCTION "meter_live_create"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "meter_live" ("meter_id") SELECT "id" FROM "inserted" ORDER BY "id" ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER "meter_live_create" AFTER INSERT ON "meter" REFERENCING NEW TABLE AS "inserted"
  FOR EACH STATEMENT EXECUTE FUNCTION "meter_live_create"();--> statement-breakpoint
-- The meters already there: reachability as the head-end sees it now, and the newest interval of
-- the last day each stored one (meter_last_read), one index range of one day per meter.
INSERT INTO "meter_live" ("meter_id", "online", "last_comm_at", "last_read_at", "last_read_wh")
SELECT m."id",
  coalesce(own."online", false) AND (m."dcu_id" IS NULL OR coalesce(via."online", false)),
  CASE WHEN own."online" THEN own."last_seen" END,
  r."ts", r."active_import"
FROM "meter" m
LEFT JOIN "device_link" own ON own."device_kind" = 'meter' AND own."device_key" = m."dev_addr"
LEFT JOIN "dcu" d ON d."id" = m."dcu_id"
LEFT JOIN "device_link" via ON via."device_kind" = 'dcu' AND via."device_key" = d."dcu_no"
LEFT JOIN "meter_last_read" l ON l."meter_id" = m."id"
LEFT JOIN LATERAL (
  SELECT p."ts", p."active_import" FROM "reading_profile" p
  WHERE p."meter_id" = m."id" AND p."active_import" IS NOT NULL
    AND p."ts" > (l."last_day"::timestamp AT TIME ZONE 'UTC') AND p."ts" <= ((l."last_day" + 1)::timestamp AT TIME ZONE 'UTC')
  ORDER BY p."ts" DESC LIMIT 1
) r ON true
ORDER BY m."id";
