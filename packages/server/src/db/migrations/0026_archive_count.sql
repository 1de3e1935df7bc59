CREATE TABLE "archive_count" (
	"grid_id" varchar(32) NOT NULL,
	"facet" varchar(24) NOT NULL,
	"value" varchar(24) NOT NULL,
	"n" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "archive_count_grid_idx" ON "archive_count" USING btree ("grid_id","facet");--> statement-breakpoint
-- Written by hand (drizzle declares no triggers): each archive table's statements append their change
-- of the counts, grouped per (grid node, facet, value), from the statement's transition tables. The
-- facets of a table are its trigger's argument, a VALUES list over the changed row `r`.
CREATE FUNCTION "archive_count_change"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text := CASE TG_OP
    WHEN 'INSERT' THEN 'select r.*, 1 as sign from new_rows r'
    WHEN 'DELETE' THEN 'select r.*, -1 as sign from old_rows r'
    ELSE 'select r.*, 1 as sign from new_rows r union all select r.*, -1 from old_rows r' END;
BEGIN
  EXECUTE format('insert into archive_count (grid_id, facet, value, n)
      select r.grid_id, f.facet, f.value, sum(r.sign) from (%s) r cross join lateral (values %s) f(facet, value)
      group by 1, 2, 3 having sum(r.sign) <> 0', changed, TG_ARGV[0]);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "archive_count_truncate"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM archive_count WHERE facet = ANY (TG_ARGV);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "meter_counted_insert" AFTER INSERT ON "meter" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(case when r.virtual then ''virtualMeter'' else ''meter'' end, r.status::text)');
--> statement-breakpoint
CREATE TRIGGER "meter_counted_update" AFTER UPDATE ON "meter" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(case when r.virtual then ''virtualMeter'' else ''meter'' end, r.status::text)');
--> statement-breakpoint
CREATE TRIGGER "meter_counted_delete" AFTER DELETE ON "meter" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(case when r.virtual then ''virtualMeter'' else ''meter'' end, r.status::text)');
--> statement-breakpoint
CREATE TRIGGER "meter_counted_truncate" AFTER TRUNCATE ON "meter"
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_truncate('meter', 'virtualMeter');
--> statement-breakpoint
CREATE TRIGGER "consumer_counted_insert" AFTER INSERT ON "consumer" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''consumerType'', r.consumer_type), (''consumerPayment'', r.payment_mode), (''consumerSpecial'', r.special::text)');
--> statement-breakpoint
CREATE TRIGGER "consumer_counted_update" AFTER UPDATE ON "consumer" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''consumerType'', r.consumer_type), (''consumerPayment'', r.payment_mode), (''consumerSpecial'', r.special::text)');
--> statement-breakpoint
CREATE TRIGGER "consumer_counted_delete" AFTER DELETE ON "consumer" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''consumerType'', r.consumer_type), (''consumerPayment'', r.payment_mode), (''consumerSpecial'', r.special::text)');
--> statement-breakpoint
CREATE TRIGGER "consumer_counted_truncate" AFTER TRUNCATE ON "consumer"
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_truncate('consumerType', 'consumerPayment', 'consumerSpecial');
--> statement-breakpoint
CREATE TRIGGER "comm_module_counted_insert" AFTER INSERT ON "comm_module" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''moduleType'', r.device_type::text), (''moduleMode'', r.working_mode)');
--> statement-breakpoint
CREATE TRIGGER "comm_module_counted_update" AFTER UPDATE ON "comm_module" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''moduleType'', r.device_type::text), (''moduleMode'', r.working_mode)');
--> statement-breakpoint
CREATE TRIGGER "comm_module_counted_delete" AFTER DELETE ON "comm_module" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''moduleType'', r.device_type::text), (''moduleMode'', r.working_mode)');
--> statement-breakpoint
CREATE TRIGGER "comm_module_counted_truncate" AFTER TRUNCATE ON "comm_module"
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_truncate('moduleType', 'moduleMode');
--> statement-breakpoint
CREATE TRIGGER "dcu_counted_insert" AFTER INSERT ON "dcu" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''dcu'', '''')');
--> statement-breakpoint
CREATE TRIGGER "dcu_counted_update" AFTER UPDATE ON "dcu" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''dcu'', '''')');
--> statement-breakpoint
CREATE TRIGGER "dcu_counted_delete" AFTER DELETE ON "dcu" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_change('(''dcu'', '''')');
--> statement-breakpoint
CREATE TRIGGER "dcu_counted_truncate" AFTER TRUNCATE ON "dcu"
  FOR EACH STATEMENT EXECUTE FUNCTION archive_count_truncate('dcu');
--> statement-breakpoint
INSERT INTO "archive_count" ("grid_id", "facet", "value", "n")
SELECT "grid_id", CASE WHEN "virtual" THEN 'virtualMeter' ELSE 'meter' END, "status"::text, count(*) FROM "meter" GROUP BY 1, 2, 3
UNION ALL
SELECT c."grid_id", f."facet", f."value", count(*) FROM "consumer" c
  CROSS JOIN LATERAL (VALUES ('consumerType', c."consumer_type"), ('consumerPayment', c."payment_mode"), ('consumerSpecial', c."special"::text)) f("facet", "value")
  GROUP BY 1, 2, 3
UNION ALL
SELECT m."grid_id", f."facet", f."value", count(*) FROM "comm_module" m
  CROSS JOIN LATERAL (VALUES ('moduleType', m."device_type"::text), ('moduleMode', m."working_mode")) f("facet", "value")
  GROUP BY 1, 2, 3
UNION ALL
SELECT "grid_id", 'dcu', '', count(*) FROM "dcu" GROUP BY 1;
