CREATE TABLE "collection_run" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"plan_id" varchar(32),
	"kind" varchar(10) NOT NULL,
	"status" varchar(10) NOT NULL,
	"occurrence" integer,
	"missed" integer DEFAULT 0 NOT NULL,
	"parent_run_id" varchar(32),
	"due_at" timestamp with time zone NOT NULL,
	"period_from" timestamp with time zone NOT NULL,
	"period_to" timestamp with time zone NOT NULL,
	"items" jsonb NOT NULL,
	"target" jsonb,
	"priority" smallint DEFAULT 5 NOT NULL,
	"timeout_seconds" integer DEFAULT 30 NOT NULL,
	"concurrency" smallint DEFAULT 4 NOT NULL,
	"devices" integer DEFAULT 0 NOT NULL,
	"expected" integer DEFAULT 0 NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"by_code" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"requests" integer DEFAULT 0 NOT NULL,
	"ranges" integer DEFAULT 0 NOT NULL,
	"requested_by" varchar(50) NOT NULL,
	"job_id" varchar(36),
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "collection_run_device" (
	"run_id" varchar(32) NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"dev_addr" varchar(50) NOT NULL,
	"dcu_id" varchar(32),
	"dcu_no" varchar(50),
	"grid_id" varchar(32) NOT NULL,
	"expected" integer DEFAULT 0 NOT NULL,
	"received" integer DEFAULT 0 NOT NULL,
	"result_code" varchar(2),
	"items" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"requested" boolean DEFAULT false NOT NULL,
	CONSTRAINT "collection_run_device_run_id_meter_id_pk" PRIMARY KEY("run_id","meter_id")
);
--> statement-breakpoint
DROP INDEX "device_command_queue_idx";--> statement-breakpoint
ALTER TABLE "device_command" ADD COLUMN "run_id" varchar(32);--> statement-breakpoint
ALTER TABLE "device_command" ADD COLUMN "route_limit" smallint;--> statement-breakpoint
CREATE INDEX "collection_run_plan_idx" ON "collection_run" USING btree ("plan_id","due_at");--> statement-breakpoint
CREATE INDEX "collection_run_open_idx" ON "collection_run" USING btree ("due_at") WHERE "collection_run"."status" in ('pending', 'queued');--> statement-breakpoint
CREATE INDEX "collection_run_parent_idx" ON "collection_run" USING btree ("parent_run_id");--> statement-breakpoint
CREATE INDEX "collection_run_device_dcu_idx" ON "collection_run_device" USING btree ("run_id","dcu_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_command_run_uq" ON "device_command" USING btree ("run_id","device_kind","device_key","operation");--> statement-breakpoint
CREATE INDEX "device_command_run_idx" ON "device_command" USING btree ("run_id","state");--> statement-breakpoint
CREATE INDEX "device_command_queue_idx" ON "device_command" USING btree ("priority" DESC NULLS LAST,"bulk","not_before","id") WHERE "device_command"."state" = 'queued';