CREATE TABLE "device_power" (
	"device_kind" varchar(8) NOT NULL,
	"device_id" varchar(32) NOT NULL,
	"down_at" timestamp with time zone,
	"up_at" timestamp with time zone,
	"dark" boolean NOT NULL,
	"dark_since" timestamp with time zone,
	CONSTRAINT "device_power_device_kind_device_id_pk" PRIMARY KEY("device_kind","device_id")
);
--> statement-breakpoint
CREATE INDEX "device_power_dark_idx" ON "device_power" USING btree ("device_kind","device_id") WHERE "device_power"."dark";--> statement-breakpoint
-- Written by hand: the supply of the devices whose power events are stored already (one pass over the events, once).
INSERT INTO "device_power" ("device_kind", "device_id", "down_at", "up_at", "dark", "dark_since")
SELECT 'meter', l.meter_id, l.down_at, l.up_at, l.dark,
	CASE WHEN l.dark THEN (SELECT min(e.ts) FROM "meter_event" e WHERE e.meter_id = l.meter_id AND e.code = 1 AND (l.up_at IS NULL OR e.ts > l.up_at)) END
FROM (
	SELECT meter_id, max(ts) FILTER (WHERE code = 1) AS down_at, max(ts) FILTER (WHERE code = 2) AS up_at,
		coalesce(max(ts) FILTER (WHERE code = 1) > max(ts) FILTER (WHERE code = 2), max(ts) FILTER (WHERE code = 2) IS NULL) AS dark
	FROM "meter_event" WHERE code IN (1, 2) GROUP BY meter_id
) l;
--> statement-breakpoint
INSERT INTO "device_power" ("device_kind", "device_id", "down_at", "up_at", "dark", "dark_since")
SELECT 'dcu', l.dcu_id, l.down_at, l.up_at, l.dark,
	CASE WHEN l.dark THEN (SELECT min(e.ts) FROM "dcu_event" e WHERE e.dcu_id = l.dcu_id AND e.code = 80 AND (l.up_at IS NULL OR e.ts > l.up_at)) END
FROM (
	SELECT dcu_id, max(ts) FILTER (WHERE code = 80) AS down_at, max(ts) FILTER (WHERE code = 81) AS up_at,
		coalesce(max(ts) FILTER (WHERE code = 80) > max(ts) FILTER (WHERE code = 81), max(ts) FILTER (WHERE code = 81) IS NULL) AS dark
	FROM "dcu_event" WHERE code IN (80, 81) GROUP BY dcu_id
) l;
