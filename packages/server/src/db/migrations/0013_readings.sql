-- The readings tables are partitioned by time (hand-written: drizzle-kit cannot declare it). Monthly
-- partitions, yearly for reading_monthly, are made ahead and dropped past retention by
-- readings/partitions.ts; there is no default partition, so a row for a month without one is refused
-- rather than parked where dropping a month would miss it.
CREATE TABLE "plan_template" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"template_name" varchar(100) NOT NULL,
	"orders" jsonb NOT NULL,
	"dev_params" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"created_by" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "clock_check" (
	"meter_id" varchar(32) NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"deviation_seconds" integer NOT NULL,
	CONSTRAINT "clock_check_meter_id_ts_pk" PRIMARY KEY("meter_id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "dcu_event" (
	"dcu_id" varchar(32) NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"code" integer NOT NULL,
	"level" smallint NOT NULL,
	"data" jsonb,
	CONSTRAINT "dcu_event_dcu_id_ts_code_pk" PRIMARY KEY("dcu_id","ts","code")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "link_change" (
	"device_id" varchar(32) NOT NULL,
	"device_kind" varchar(8) NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"online" boolean NOT NULL,
	CONSTRAINT "link_change_device_id_ts_pk" PRIMARY KEY("device_id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "meter_event" (
	"meter_id" varchar(32) NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"code" integer NOT NULL,
	"level" smallint NOT NULL,
	"data" jsonb,
	CONSTRAINT "meter_event_meter_id_ts_code_pk" PRIMARY KEY("meter_id","ts","code")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
CREATE TABLE "reading_daily" (
	"meter_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"active_import" bigint,
	"active_import_t1" bigint,
	"active_import_t2" bigint,
	"active_import_t3" bigint,
	"active_import_t4" bigint,
	"active_export" bigint,
	"reactive_import" bigint,
	"reactive_export" bigint,
	"max_demand" integer,
	CONSTRAINT "reading_daily_meter_id_day_pk" PRIMARY KEY("meter_id","day")
) PARTITION BY RANGE ("day");
--> statement-breakpoint
CREATE TABLE "reading_monthly" (
	"meter_id" varchar(32) NOT NULL,
	"month" date NOT NULL,
	"active_import" bigint,
	"active_import_t1" bigint,
	"active_import_t2" bigint,
	"active_import_t3" bigint,
	"active_import_t4" bigint,
	"active_export" bigint,
	"reactive_import" bigint,
	"reactive_export" bigint,
	"max_demand" integer,
	CONSTRAINT "reading_monthly_meter_id_month_pk" PRIMARY KEY("meter_id","month")
) PARTITION BY RANGE ("month");
--> statement-breakpoint
CREATE TABLE "reading_profile" (
	"meter_id" varchar(32) NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"active_import" bigint,
	"active_export" bigint,
	"reactive_import" bigint,
	"reactive_export" bigint,
	"active_power" integer,
	"voltage_l1" integer,
	"current_l1" integer,
	CONSTRAINT "reading_profile_meter_id_ts_pk" PRIMARY KEY("meter_id","ts")
) PARTITION BY RANGE ("ts");
--> statement-breakpoint
ALTER TABLE "plan" ADD COLUMN "kind" varchar(12) DEFAULT 'operation' NOT NULL;--> statement-breakpoint
ALTER TABLE "plan" ADD COLUMN "enabled" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "plan" ADD COLUMN "executed_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "plan" ADD COLUMN "next_run_at" timestamp with time zone;--> statement-breakpoint
CREATE UNIQUE INDEX "plan_template_name_uq" ON "plan_template" USING btree (lower("template_name"));--> statement-breakpoint
CREATE INDEX "dcu_event_ts_idx" ON "dcu_event" USING btree ("ts");--> statement-breakpoint
CREATE INDEX "meter_event_ts_idx" ON "meter_event" USING btree ("ts");--> statement-breakpoint
CREATE UNIQUE INDEX "plan_task_name_uq" ON "plan" USING btree (lower("plan_name")) WHERE "plan"."kind" = 'collection' and "plan"."plan_status" <> 'deleted';--> statement-breakpoint
CREATE INDEX "plan_due_idx" ON "plan" USING btree ("next_run_at") WHERE "plan"."enabled" and "plan"."next_run_at" is not null;