CREATE TABLE "collection_run_code_kpi" (
	"run_id" varchar(32) NOT NULL,
	"code" varchar(2),
	"devices" integer NOT NULL,
	"expected" bigint NOT NULL,
	"received" bigint NOT NULL,
	"first_received" bigint NOT NULL,
	"failed" integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX "collection_run_code_kpi_run_idx" ON "collection_run_code_kpi" USING btree ("run_id");--> statement-breakpoint
-- The occurrences settled so far, summed from their rows per grid node and DCU (run-kpi.ts's writeCodeKpi).
INSERT INTO "collection_run_code_kpi" ("run_id", "code", "devices", "expected", "received", "first_received", "failed")
SELECT "run_id", "code", sum("devices"), sum("expected"), sum("received"), sum("first_received"), sum("failed")
FROM "collection_run_kpi" GROUP BY "run_id", "code" ORDER BY "run_id", "code";
