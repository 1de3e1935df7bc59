CREATE TABLE "device_command" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"req_id" varchar(64) NOT NULL,
	"plan_id" varchar(32),
	"device_kind" varchar(8) NOT NULL,
	"device_key" varchar(50) NOT NULL,
	"route" varchar(60) NOT NULL,
	"meter_id" varchar(32),
	"dcu_id" varchar(32),
	"grid_id" varchar(32),
	"operation" varchar(40) NOT NULL,
	"command" jsonb NOT NULL,
	"priority" smallint DEFAULT 5 NOT NULL,
	"bulk" boolean DEFAULT false NOT NULL,
	"state" varchar(8) DEFAULT 'queued' NOT NULL,
	"not_before" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"wait_online" boolean DEFAULT false NOT NULL,
	"timeout_seconds" integer DEFAULT 30 NOT NULL,
	"attempt" smallint DEFAULT 0 NOT NULL,
	"max_timeout_retries" smallint DEFAULT 0 NOT NULL,
	"max_busy_retries" smallint DEFAULT 0 NOT NULL,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"sent_at" timestamp with time zone,
	"deadline" timestamp with time zone,
	"result_code" varchar(2),
	"answer" jsonb,
	"answer_time" timestamp with time zone,
	"requested_by" varchar(50) NOT NULL,
	"audited" boolean DEFAULT false NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_link" (
	"device_kind" varchar(8) NOT NULL,
	"device_key" varchar(50) NOT NULL,
	"online" boolean NOT NULL,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_link_device_kind_device_key_pk" PRIMARY KEY("device_kind","device_key")
);
--> statement-breakpoint
CREATE TABLE "plan" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"plan_name" varchar(100) NOT NULL,
	"plan_temp_name" varchar(100) DEFAULT '' NOT NULL,
	"push_type" smallint DEFAULT 2 NOT NULL,
	"pri" smallint DEFAULT 5 NOT NULL,
	"timeout" integer DEFAULT 30 NOT NULL,
	"plan_status" varchar(20) NOT NULL,
	"devs" jsonb NOT NULL,
	"crontab" jsonb,
	"orders" jsonb NOT NULL,
	"event_code" varchar(50) DEFAULT '' NOT NULL,
	"req_id" varchar(64) DEFAULT '' NOT NULL,
	"concurrent" smallint DEFAULT 4 NOT NULL,
	"device_count" integer DEFAULT 0 NOT NULL,
	"created_by" varchar(50) NOT NULL,
	"approved_by" varchar(50),
	"approve_time" timestamp with time zone,
	"job_id" varchar(36),
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "device_command_req_uq" ON "device_command" USING btree ("req_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_command_plan_uq" ON "device_command" USING btree ("plan_id","device_kind","device_key","operation");--> statement-breakpoint
CREATE INDEX "device_command_queue_idx" ON "device_command" USING btree ("priority" DESC NULLS LAST,"not_before","id") WHERE "device_command"."state" = 'queued';--> statement-breakpoint
CREATE INDEX "device_command_sent_idx" ON "device_command" USING btree ("deadline") WHERE "device_command"."state" = 'sent';--> statement-breakpoint
CREATE INDEX "device_command_device_idx" ON "device_command" USING btree ("device_kind","device_key","create_time");--> statement-breakpoint
CREATE INDEX "device_command_meter_idx" ON "device_command" USING btree ("meter_id","create_time");--> statement-breakpoint
CREATE INDEX "device_command_plan_idx" ON "device_command" USING btree ("plan_id");--> statement-breakpoint
CREATE UNIQUE INDEX "plan_req_uq" ON "plan" USING btree ("created_by","req_id") WHERE "plan"."req_id" <> '';--> statement-breakpoint
CREATE INDEX "plan_status_idx" ON "plan" USING btree ("plan_status","create_time");