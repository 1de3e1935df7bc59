CREATE TABLE "collection_run_dcu_kpi" (
	"run_id" varchar(32) NOT NULL,
	"dcu_no" varchar(50),
	"devices" integer NOT NULL,
	"expected" bigint NOT NULL,
	"received" bigint NOT NULL,
	"first_received" bigint NOT NULL,
	"failed" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "collection_run_dcu_kpi_run_idx" ON "collection_run_dcu_kpi" USING btree ("run_id");--> statement-breakpoint
-- The occurrences settled so far, summed from their rows per grid node and code (run-kpi.ts's writeKpiSummaries).
INSERT INTO "collection_run_dcu_kpi" ("run_id", "dcu_no", "devices", "expected", "received", "first_received", "failed")
SELECT "run_id", "dcu_no", sum("devices"), sum("expected"), sum("received"), sum("first_received"), sum("failed")
FROM "collection_run_kpi" GROUP BY "run_id", "dcu_no" ORDER BY "run_id", "dcu_no";
