CREATE TABLE "power_grid" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"grid_name" varchar(50) NOT NULL,
	"grid_type" smallint DEFAULT 0 NOT NULL,
	"parent_id" varchar(32) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_data_item" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"item_name" varchar(100) NOT NULL,
	"item_name_en" varchar(100) NOT NULL,
	"obis" varchar(32) NOT NULL,
	"class_id" smallint NOT NULL,
	"unit" varchar(16) DEFAULT '' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_group" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"group_name" varchar(50) NOT NULL,
	"group_code" varchar(50) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_notice_template" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"template_name" varchar(100) NOT NULL,
	"notice_type" smallint DEFAULT 0 NOT NULL,
	"notice_title" varchar(200) NOT NULL,
	"notice_content" text DEFAULT '' NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_parameter" (
	"key" varchar(64) PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_tariff_config" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"tariff_valid_count" integer NOT NULL,
	"tariff_days" integer NOT NULL,
	"tariff_weeks" integer NOT NULL,
	"tariff_seasons" integer NOT NULL,
	"tariff_special_days" integer NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_user_group" (
	"user_id" varchar(32) NOT NULL,
	"group_id" varchar(32) NOT NULL,
	CONSTRAINT "sys_user_group_user_id_group_id_pk" PRIMARY KEY("user_id","group_id")
);
--> statement-breakpoint
ALTER TABLE "sys_user" ADD COLUMN "sub_meter_event_flag" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_user" ADD COLUMN "sub_email_flag" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_user" ADD COLUMN "sub_msg_flag" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_user" ADD COLUMN "sub_special_user_event_flag" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_user" ADD COLUMN "sub_exception_flag" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "sys_group" ADD CONSTRAINT "sys_group_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_user_group" ADD CONSTRAINT "sys_user_group_user_id_sys_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."sys_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_user_group" ADD CONSTRAINT "sys_user_group_group_id_sys_group_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."sys_group"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "power_grid_name_uq" ON "power_grid" USING btree ("grid_name");--> statement-breakpoint
CREATE INDEX "power_grid_parent_idx" ON "power_grid" USING btree ("parent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_data_item_obis_uq" ON "sys_data_item" USING btree ("obis");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_group_name_uq" ON "sys_group" USING btree ("group_name");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_group_code_uq" ON "sys_group" USING btree ("group_code");--> statement-breakpoint
CREATE INDEX "sys_user_group_group_idx" ON "sys_user_group" USING btree ("group_id");