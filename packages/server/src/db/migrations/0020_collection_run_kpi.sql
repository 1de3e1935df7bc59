CREATE TABLE "collection_run_kpi" (
	"run_id" varchar(32) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"dcu_no" varchar(50),
	"code" varchar(2),
	"devices" integer NOT NULL,
	"expected" bigint NOT NULL,
	"received" bigint NOT NULL,
	"first_received" bigint NOT NULL,
	"failed" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "collection_run_kpi_run_idx" ON "collection_run_kpi" USING btree ("run_id");--> statement-breakpoint
-- Occurrences run before: their rows from their chains' device rows, as a run's end writes them (run-kpi.ts).
INSERT INTO "collection_run_kpi" ("run_id", "grid_id", "dcu_no", "code", "devices", "expected", "received", "first_received", "failed")
SELECT run_id, grid_id, dcu_no, code, count(*)::int, sum(expected), sum(received), sum(first_received),
  (count(*) FILTER (WHERE received < expected OR coalesce(code, '00') <> '00'))::int
FROM (
  SELECT o.id AS run_id, d.meter_id, max(d.grid_id) AS grid_id, d.dcu_no,
    max(d.expected) AS expected, max(d.received) AS received,
    coalesce(max(d.received) FILTER (WHERE c.id = o.id), 0) AS first_received,
    (array_agg(d.result_code ORDER BY c.due_at DESC, c.create_time DESC) FILTER (WHERE d.result_code IS NOT NULL))[1] AS code
  FROM "collection_run" o
  CROSS JOIN LATERAL (
    SELECT x.id, x.due_at, x.create_time FROM "collection_run" x WHERE x.id = o.id
    UNION ALL
    SELECT x.id, x.due_at, x.create_time FROM "collection_run" x WHERE x.parent_run_id = o.id AND x.status IN ('running', 'finished')
  ) c
  JOIN "collection_run_device" d ON d.run_id = c.id
  WHERE o.plan_id IS NOT NULL AND o.kind IN ('scheduled', 'manual') AND o.status = 'finished'
  GROUP BY o.id, d.meter_id, d.dcu_no
) m
GROUP BY run_id, grid_id, dcu_no, code;
