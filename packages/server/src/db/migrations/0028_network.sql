CREATE TABLE "device_online" (
	"device_id" varchar(32) PRIMARY KEY NOT NULL,
	"device_kind" varchar(8) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"counted" boolean NOT NULL,
	"link_online" boolean DEFAULT false NOT NULL,
	"link_changed_at" timestamp with time zone,
	"online" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "online_count" (
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"device_kind" varchar(8) NOT NULL,
	"online" boolean NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
-- rollup_online_day holds a row per device per day: partitioned by month like rollup_meter_day (written
-- by hand, as drizzle-kit cannot declare partitioning; readings/partitions.ts makes and drops the months).
CREATE TABLE "rollup_online_day" (
	"device_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"device_kind" varchar(8) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"dcu_id" varchar(32),
	"counted" boolean NOT NULL,
	"online_seconds" integer NOT NULL,
	"online_at_end" boolean NOT NULL,
	"changes" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "rollup_online_day_device_id_day_pk" PRIMARY KEY("device_id","day")
) PARTITION BY RANGE ("day");
--> statement-breakpoint
CREATE TABLE "rollup_online_dcu_day" (
	"dcu_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"devices" integer NOT NULL,
	"online_seconds" bigint NOT NULL,
	"online_at_end" integer NOT NULL,
	"changes" integer NOT NULL,
	CONSTRAINT "rollup_online_dcu_day_dcu_id_day_pk" PRIMARY KEY("dcu_id","day")
);
--> statement-breakpoint
CREATE TABLE "rollup_online_filled" (
	"day" date PRIMARY KEY NOT NULL,
	"filled_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "rollup_online_grid_day" (
	"grid_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"device_kind" varchar(8) NOT NULL,
	"devices" integer NOT NULL,
	"online_seconds" bigint NOT NULL,
	"online_at_end" integer NOT NULL,
	"changes" integer NOT NULL,
	CONSTRAINT "rollup_online_grid_day_grid_id_day_device_kind_pk" PRIMARY KEY("grid_id","day","device_kind")
);
--> statement-breakpoint
CREATE TABLE "rollup_online_pending" (
	"device_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_online_pending_device_id_day_pk" PRIMARY KEY("device_id","day")
);
--> statement-breakpoint
ALTER TABLE "device_link" ADD COLUMN "heartbeat_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "device_online_dcu_idx" ON "device_online" USING btree ("dcu_id");--> statement-breakpoint
CREATE INDEX "online_count_grid_idx" ON "online_count" USING btree ("grid_id");--> statement-breakpoint
CREATE INDEX "online_count_dcu_idx" ON "online_count" USING btree ("dcu_id");--> statement-breakpoint
CREATE INDEX "rollup_online_day_grid_idx" ON "rollup_online_day" USING btree ("grid_id","day");--> statement-breakpoint
CREATE INDEX "rollup_online_day_dcu_idx" ON "rollup_online_day" USING btree ("dcu_id","day");--> statement-breakpoint
CREATE INDEX "rollup_online_grid_day_day_idx" ON "rollup_online_grid_day" USING btree ("day");--> statement-breakpoint
CREATE INDEX "device_link_lower_key_idx" ON "device_link" USING btree ("device_kind",lower("device_key"));
--> statement-breakpoint
-- Written by hand from here (drizzle declares no functions or triggers). device_online follows the
-- archive and the head-end's device_link: each sync recomputes the named devices' rows from both and
-- writes only what changed. A key matches its link whatever the case, as the readings' key cache does.
-- A meter counts when it is not virtual and its status is one a report expects to read: contracts'
-- REPORTING_METER_STATUSES (installed, activate, anomaly), which this function has to repeat.
CREATE FUNCTION "device_online_sync_meters"(ids varchar[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM device_online o WHERE o.device_id = ANY (ids) AND o.device_kind = 'meter'
    AND NOT EXISTS (SELECT 1 FROM meter m WHERE m.id = o.device_id);
  INSERT INTO device_online AS o (device_id, device_kind, grid_id, dcu_id, counted, link_online, link_changed_at, online)
  SELECT m.id, 'meter', m.grid_id, m.dcu_id, m.status IN (1, 2, 3) AND NOT m.virtual,
    coalesce(l.online, false), l.changed_at,
    coalesce(l.online, false) AND (m.dcu_id IS NULL OR coalesce(d.link_online, false))
  FROM meter m
  LEFT JOIN LATERAL (
    SELECT l.online, l.changed_at FROM device_link l
    WHERE l.device_kind = 'meter' AND lower(l.device_key) = lower(m.dev_addr) ORDER BY l.changed_at DESC LIMIT 1
  ) l ON true
  LEFT JOIN device_online d ON d.device_id = m.dcu_id
  WHERE m.id = ANY (ids)
  ORDER BY m.id
  ON CONFLICT (device_id) DO UPDATE SET grid_id = excluded.grid_id, dcu_id = excluded.dcu_id, counted = excluded.counted,
    link_online = excluded.link_online, link_changed_at = excluded.link_changed_at, online = excluded.online
  WHERE (o.grid_id, o.dcu_id, o.counted, o.link_online, o.link_changed_at, o.online)
    IS DISTINCT FROM (excluded.grid_id, excluded.dcu_id, excluded.counted, excluded.link_online, excluded.link_changed_at, excluded.online);
END $$;
--> statement-breakpoint
-- A DCU's link also decides whether its meters are reachable.
CREATE FUNCTION "device_online_sync_dcus"(ids varchar[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM device_online o WHERE o.device_id = ANY (ids) AND o.device_kind = 'dcu'
    AND NOT EXISTS (SELECT 1 FROM dcu d WHERE d.id = o.device_id);
  INSERT INTO device_online AS o (device_id, device_kind, grid_id, dcu_id, counted, link_online, link_changed_at, online)
  SELECT d.id, 'dcu', d.grid_id, NULL, true, coalesce(l.online, false), l.changed_at, coalesce(l.online, false)
  FROM dcu d
  LEFT JOIN LATERAL (
    SELECT l.online, l.changed_at FROM device_link l
    WHERE l.device_kind = 'dcu' AND lower(l.device_key) = lower(d.dcu_no) ORDER BY l.changed_at DESC LIMIT 1
  ) l ON true
  WHERE d.id = ANY (ids)
  ORDER BY d.id
  ON CONFLICT (device_id) DO UPDATE SET grid_id = excluded.grid_id, dcu_id = excluded.dcu_id, counted = excluded.counted,
    link_online = excluded.link_online, link_changed_at = excluded.link_changed_at, online = excluded.online
  WHERE (o.grid_id, o.dcu_id, o.counted, o.link_online, o.link_changed_at, o.online)
    IS DISTINCT FROM (excluded.grid_id, excluded.dcu_id, excluded.counted, excluded.link_online, excluded.link_changed_at, excluded.online);
  UPDATE device_online m SET online = m.link_online AND coalesce(d.link_online, false)
  FROM unnest(ids) AS i(id) LEFT JOIN device_online d ON d.device_id = i.id
  WHERE m.dcu_id = i.id AND m.online IS DISTINCT FROM (m.link_online AND coalesce(d.link_online, false));
END $$;
--> statement-breakpoint
CREATE FUNCTION "device_online_archive_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids varchar[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM device_online WHERE device_kind = TG_ARGV[0];
    RETURN NULL;
  ELSIF TG_OP = 'DELETE' THEN
    DELETE FROM device_online WHERE device_id IN (SELECT id FROM old_rows);
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    ids := ARRAY(SELECT id FROM new_rows);
  ELSIF TG_ARGV[0] = 'meter' THEN
    ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.grid_id, n.dcu_id, lower(n.dev_addr), n.status, n.virtual)
        IS DISTINCT FROM (o.grid_id, o.dcu_id, lower(o.dev_addr), o.status, o.virtual));
  ELSE
    ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.grid_id, lower(n.dcu_no)) IS DISTINCT FROM (o.grid_id, lower(o.dcu_no)));
  END IF;
  IF cardinality(ids) = 0 THEN RETURN NULL; END IF;
  IF TG_ARGV[0] = 'meter' THEN PERFORM device_online_sync_meters(ids); ELSE PERFORM device_online_sync_dcus(ids); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "meter_online_insert" AFTER INSERT ON "meter" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('meter');--> statement-breakpoint
CREATE TRIGGER "meter_online_update" AFTER UPDATE ON "meter" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('meter');--> statement-breakpoint
CREATE TRIGGER "meter_online_delete" AFTER DELETE ON "meter" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('meter');--> statement-breakpoint
CREATE TRIGGER "meter_online_truncate" AFTER TRUNCATE ON "meter"
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('meter');--> statement-breakpoint
CREATE TRIGGER "dcu_online_insert" AFTER INSERT ON "dcu" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('dcu');--> statement-breakpoint
CREATE TRIGGER "dcu_online_update" AFTER UPDATE ON "dcu" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('dcu');--> statement-breakpoint
CREATE TRIGGER "dcu_online_delete" AFTER DELETE ON "dcu" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('dcu');--> statement-breakpoint
CREATE TRIGGER "dcu_online_truncate" AFTER TRUNCATE ON "dcu"
  FOR EACH STATEMENT EXECUTE FUNCTION device_online_archive_change('dcu');--> statement-breakpoint
-- The head-end's status upsert sets the link in its own statement, before it announces the change: a
-- meter's row, or a DCU's and its meters' reachability (a fleet's statuses arrive by the thousand at
-- start, so this touches the rows that change and nothing else).
CREATE FUNCTION "device_online_link_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.device_kind = 'meter' THEN
    UPDATE device_online o SET link_online = NEW.online, link_changed_at = NEW.changed_at,
      online = NEW.online AND (o.dcu_id IS NULL
        OR coalesce((SELECT d.link_online FROM device_online d WHERE d.device_id = o.dcu_id), false))
    FROM meter m WHERE lower(m.dev_addr) = lower(NEW.device_key) AND o.device_id = m.id;
  ELSE
    UPDATE device_online o SET link_online = NEW.online, link_changed_at = NEW.changed_at, online = NEW.online
    FROM dcu d WHERE lower(d.dcu_no) = lower(NEW.device_key) AND o.device_id = d.id;
    UPDATE device_online m SET online = m.link_online AND NEW.online
    FROM dcu d WHERE lower(d.dcu_no) = lower(NEW.device_key) AND m.dcu_id = d.id
      AND m.online IS DISTINCT FROM (m.link_online AND NEW.online);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "device_link_online_insert" AFTER INSERT ON "device_link"
  FOR EACH ROW EXECUTE FUNCTION device_online_link_change();--> statement-breakpoint
CREATE TRIGGER "device_link_online_update" AFTER UPDATE OF "online" ON "device_link"
  FOR EACH ROW WHEN (OLD.online IS DISTINCT FROM NEW.online) EXECUTE FUNCTION device_online_link_change();--> statement-breakpoint
CREATE FUNCTION "online_count_change"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO online_count (grid_id, dcu_id, device_kind, online, n)
    SELECT grid_id, dcu_id, device_kind, online, count(*) FROM new_rows WHERE counted GROUP BY 1, 2, 3, 4;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO online_count (grid_id, dcu_id, device_kind, online, n)
    SELECT grid_id, dcu_id, device_kind, online, -count(*) FROM old_rows WHERE counted GROUP BY 1, 2, 3, 4;
  ELSE
    INSERT INTO online_count (grid_id, dcu_id, device_kind, online, n)
    SELECT grid_id, dcu_id, device_kind, online, sum(sign) FROM (
      SELECT grid_id, dcu_id, device_kind, online, 1 AS sign FROM new_rows WHERE counted
      UNION ALL SELECT grid_id, dcu_id, device_kind, online, -1 FROM old_rows WHERE counted) c
    GROUP BY 1, 2, 3, 4 HAVING sum(sign) <> 0;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "device_online_counted_insert" AFTER INSERT ON "device_online" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION online_count_change();--> statement-breakpoint
CREATE TRIGGER "device_online_counted_update" AFTER UPDATE ON "device_online" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION online_count_change();--> statement-breakpoint
CREATE TRIGGER "device_online_counted_delete" AFTER DELETE ON "device_online" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION online_count_change();--> statement-breakpoint
-- The devices already there (DCUs first: a meter's reachability reads its DCU's row).
SELECT device_online_sync_dcus(ARRAY(SELECT id FROM dcu));--> statement-breakpoint
SELECT device_online_sync_meters(ARRAY(SELECT id FROM meter));--> statement-breakpoint
-- The link changes already stored (the longest period a page shows) are rolled up by the next fold.
INSERT INTO rollup_online_pending (device_id, day)
SELECT l.device_id, (l.ts AT TIME ZONE 'UTC')::date FROM link_change l WHERE l.ts >= now() - interval '92 days'
UNION
SELECT m.id, (l.ts AT TIME ZONE 'UTC')::date FROM link_change l JOIN meter m ON m.dcu_id = l.device_id
WHERE l.device_kind = 'dcu' AND l.ts >= now() - interval '92 days'
ON CONFLICT DO NOTHING;
