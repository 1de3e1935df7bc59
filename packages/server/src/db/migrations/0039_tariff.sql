CREATE TABLE "tariff" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"tariff_name" varchar(100) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"price1" numeric(12, 4) DEFAULT 0 NOT NULL,
	"price2" numeric(12, 4) DEFAULT 0 NOT NULL,
	"price3" numeric(12, 4) DEFAULT 0 NOT NULL,
	"price4" numeric(12, 4) DEFAULT 0 NOT NULL,
	"calendar" jsonb NOT NULL,
	"revision" integer DEFAULT 1 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meter_tariff" (
	"meter_id" varchar(32) PRIMARY KEY NOT NULL,
	"tariff_id" varchar(32),
	"tariff_name" varchar(100) NOT NULL,
	"revision" integer NOT NULL,
	"push_id" varchar(32),
	"activation_time" timestamp with time zone NOT NULL,
	"taken_time" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tariff_event" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"push_id" varchar(32) NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"dev_addr" varchar(50) NOT NULL,
	"plan_id" varchar(32) NOT NULL,
	"command_id" varchar(32) NOT NULL,
	"attempts" integer DEFAULT 1 NOT NULL,
	"state" varchar(8) DEFAULT 'waiting' NOT NULL,
	"result_code" varchar(2),
	"send_time" timestamp with time zone DEFAULT now() NOT NULL,
	"answer_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "tariff_push" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"tariff_id" varchar(32),
	"tariff_name" varchar(100) NOT NULL,
	"revision" integer NOT NULL,
	"calendar" jsonb NOT NULL,
	"activation_time" timestamp with time zone NOT NULL,
	"created_by" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tariff_unmapped" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"meter_id" varchar(32),
	"poc_id" varchar(32),
	"text" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "meter_tariff" ADD CONSTRAINT "meter_tariff_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_tariff" ADD CONSTRAINT "meter_tariff_tariff_id_tariff_id_fk" FOREIGN KEY ("tariff_id") REFERENCES "public"."tariff"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_tariff" ADD CONSTRAINT "meter_tariff_push_id_tariff_push_id_fk" FOREIGN KEY ("push_id") REFERENCES "public"."tariff_push"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tariff_event" ADD CONSTRAINT "tariff_event_push_id_tariff_push_id_fk" FOREIGN KEY ("push_id") REFERENCES "public"."tariff_push"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tariff_event" ADD CONSTRAINT "tariff_event_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tariff_push" ADD CONSTRAINT "tariff_push_tariff_id_tariff_id_fk" FOREIGN KEY ("tariff_id") REFERENCES "public"."tariff"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tariff_unmapped" ADD CONSTRAINT "tariff_unmapped_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "tariff_unmapped" ADD CONSTRAINT "tariff_unmapped_poc_id_poc_id_fk" FOREIGN KEY ("poc_id") REFERENCES "public"."poc"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "tariff_name_uq" ON "tariff" USING btree (lower("tariff_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "tariff_event_push_meter_uq" ON "tariff_event" USING btree ("push_id","meter_id");--> statement-breakpoint
CREATE INDEX "tariff_event_command_idx" ON "tariff_event" USING btree ("command_id");--> statement-breakpoint
CREATE INDEX "tariff_event_meter_idx" ON "tariff_event" USING btree ("meter_id");--> statement-breakpoint
CREATE INDEX "tariff_push_tariff_idx" ON "tariff_push" USING btree ("tariff_id","create_time");--> statement-breakpoint
CREATE INDEX "tariff_push_time_idx" ON "tariff_push" USING btree ("create_time");--> statement-breakpoint
CREATE INDEX "tariff_unmapped_text_idx" ON "tariff_unmapped" USING btree ("text");