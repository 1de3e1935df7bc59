CREATE TABLE "comm_module" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"module_no" varchar(50) NOT NULL,
	"comm_address" varchar(100) DEFAULT '' NOT NULL,
	"sim_no" varchar(30) DEFAULT '' NOT NULL,
	"device_type" smallint NOT NULL,
	"working_mode" varchar(16) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "consumer" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"consumer_code" varchar(50) NOT NULL,
	"consumer_name" varchar(100) NOT NULL,
	"identity_number" varchar(50) DEFAULT '' NOT NULL,
	"address" varchar(200) DEFAULT '' NOT NULL,
	"longitude" double precision,
	"latitude" double precision,
	"consumer_type" varchar(16) NOT NULL,
	"special" boolean DEFAULT false NOT NULL,
	"payment_mode" varchar(8) NOT NULL,
	"label" varchar(50) DEFAULT '' NOT NULL,
	"gender" varchar(8) DEFAULT '' NOT NULL,
	"email" varchar(100) DEFAULT '' NOT NULL,
	"phone" varchar(30) DEFAULT '' NOT NULL,
	"protected" boolean DEFAULT false NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "dcu" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"dcu_no" varchar(50) NOT NULL,
	"dcu_name" varchar(100) DEFAULT '' NOT NULL,
	"model" varchar(50) DEFAULT '' NOT NULL,
	"supplier_id" varchar(32),
	"address" varchar(200) DEFAULT '' NOT NULL,
	"longitude" double precision,
	"latitude" double precision,
	"lls_level" smallint DEFAULT 0 NOT NULL,
	"lls_key" text,
	"hls_auth_key" text,
	"hls_enc_key" text,
	"hls_auth_enc_key" text,
	"blacklist" text[] DEFAULT '{}'::text[] NOT NULL,
	"task_enabled" boolean DEFAULT false NOT NULL,
	"task_group" smallint,
	"min_cycle_minutes" integer,
	"collect_period_minutes" integer,
	"report_period_minutes" integer,
	"task_start" varchar(5) DEFAULT '' NOT NULL,
	"task_end" varchar(5) DEFAULT '' NOT NULL,
	"max_supplement_days" integer,
	"execution_offset_minutes" integer,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meter" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"dev_addr" varchar(50) NOT NULL,
	"meter_type_id" varchar(32),
	"supplier_id" varchar(32),
	"status" smallint DEFAULT 0 NOT NULL,
	"comm_type" varchar(16) DEFAULT '' NOT NULL,
	"auth_type" varchar(8) DEFAULT 'none' NOT NULL,
	"security_type" smallint DEFAULT 0 NOT NULL,
	"data_channel" varchar(50) DEFAULT '' NOT NULL,
	"interface_type" varchar(16) DEFAULT '' NOT NULL,
	"virtual" boolean DEFAULT false NOT NULL,
	"meter_box_no" varchar(50) DEFAULT '' NOT NULL,
	"module_id" varchar(32),
	"dcu_id" varchar(32),
	"tariff_id" varchar(50) DEFAULT '' NOT NULL,
	"hes_password" text,
	"longitude" double precision,
	"latitude" double precision,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meter_status_history" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"from_status" smallint NOT NULL,
	"to_status" smallint NOT NULL,
	"reason" varchar(500) DEFAULT '' NOT NULL,
	"username" varchar(50) NOT NULL,
	"time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meter_type" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"model_name" varchar(100) NOT NULL,
	"supplier_id" varchar(32) NOT NULL,
	"wiring" varchar(8) NOT NULL,
	"side" varchar(16) NOT NULL,
	"rated_voltage" numeric(10, 2),
	"rated_current" numeric(10, 2),
	"max_current" numeric(10, 2),
	"accuracy_class" varchar(16) DEFAULT '' NOT NULL,
	"comm_types" text[] DEFAULT '{}'::text[] NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poc" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"poc_no" varchar(50) NOT NULL,
	"nature" smallint NOT NULL,
	"ct_ratio" numeric(10, 2) DEFAULT 1 NOT NULL,
	"pt_ratio" numeric(10, 2) DEFAULT 1 NOT NULL,
	"capacity" numeric(12, 2),
	"sync_status" smallint DEFAULT 0 NOT NULL,
	"registered" boolean DEFAULT false NOT NULL,
	"tariff_id" varchar(50) DEFAULT '' NOT NULL,
	"task_group_id" smallint,
	"dcu_id" varchar(32),
	"consumer_id" varchar(32),
	"meter_id" varchar(32),
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "poc_replacement" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"poc_id" varchar(32) NOT NULL,
	"seq" integer NOT NULL,
	"old_meter_id" varchar(32),
	"old_dev_addr" varchar(50) NOT NULL,
	"new_meter_id" varchar(32),
	"new_dev_addr" varchar(50) NOT NULL,
	"old_active_total" numeric(14, 3),
	"old_reactive_total" numeric(14, 3),
	"new_active_total" numeric(14, 3),
	"new_reactive_total" numeric(14, 3),
	"changer" varchar(50) NOT NULL,
	"change_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "supplier" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"supplier_code" varchar(50) NOT NULL,
	"supplier_name" varchar(100) NOT NULL,
	"contact" varchar(50) DEFAULT '' NOT NULL,
	"phone" varchar(30) DEFAULT '' NOT NULL,
	"address" varchar(200) DEFAULT '' NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "power_grid_name_uq";--> statement-breakpoint
ALTER TABLE "power_grid" ADD COLUMN "grid_code" varchar(50) DEFAULT '' NOT NULL;--> statement-breakpoint
-- Nodes made before codes existed get one from their id (letters and digits, unique like the id).
UPDATE "power_grid" SET "grid_code" = 'G' || upper(substr("id", 1, 16));--> statement-breakpoint
ALTER TABLE "power_grid" ALTER COLUMN "grid_code" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "power_grid" ADD COLUMN "capacity" numeric(12, 2);--> statement-breakpoint
ALTER TABLE "power_grid" ADD COLUMN "primary_poc_id" varchar(32);--> statement-breakpoint
ALTER TABLE "comm_module" ADD CONSTRAINT "comm_module_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "consumer" ADD CONSTRAINT "consumer_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dcu" ADD CONSTRAINT "dcu_supplier_id_supplier_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "dcu" ADD CONSTRAINT "dcu_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_meter_type_id_meter_type_id_fk" FOREIGN KEY ("meter_type_id") REFERENCES "public"."meter_type"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_supplier_id_supplier_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_module_id_comm_module_id_fk" FOREIGN KEY ("module_id") REFERENCES "public"."comm_module"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_dcu_id_dcu_id_fk" FOREIGN KEY ("dcu_id") REFERENCES "public"."dcu"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_status_history" ADD CONSTRAINT "meter_status_history_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "meter_type" ADD CONSTRAINT "meter_type_supplier_id_supplier_id_fk" FOREIGN KEY ("supplier_id") REFERENCES "public"."supplier"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc" ADD CONSTRAINT "poc_dcu_id_dcu_id_fk" FOREIGN KEY ("dcu_id") REFERENCES "public"."dcu"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc" ADD CONSTRAINT "poc_consumer_id_consumer_id_fk" FOREIGN KEY ("consumer_id") REFERENCES "public"."consumer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc" ADD CONSTRAINT "poc_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc" ADD CONSTRAINT "poc_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc_replacement" ADD CONSTRAINT "poc_replacement_poc_id_poc_id_fk" FOREIGN KEY ("poc_id") REFERENCES "public"."poc"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "comm_module_no_uq" ON "comm_module" USING btree (lower("module_no"));--> statement-breakpoint
CREATE INDEX "comm_module_grid_idx" ON "comm_module" USING btree ("grid_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "consumer_code_uq" ON "consumer" USING btree (lower("consumer_code"));--> statement-breakpoint
CREATE INDEX "consumer_grid_idx" ON "consumer" USING btree ("grid_id","id");--> statement-breakpoint
CREATE INDEX "consumer_name_idx" ON "consumer" USING btree ("consumer_name");--> statement-breakpoint
CREATE UNIQUE INDEX "dcu_no_uq" ON "dcu" USING btree (lower("dcu_no"));--> statement-breakpoint
CREATE INDEX "dcu_grid_idx" ON "dcu" USING btree ("grid_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "meter_dev_addr_uq" ON "meter" USING btree (lower("dev_addr"));--> statement-breakpoint
CREATE UNIQUE INDEX "meter_module_uq" ON "meter" USING btree ("module_id");--> statement-breakpoint
CREATE INDEX "meter_grid_idx" ON "meter" USING btree ("grid_id","dev_addr","id");--> statement-breakpoint
CREATE INDEX "meter_dev_addr_idx" ON "meter" USING btree ("dev_addr","id");--> statement-breakpoint
CREATE INDEX "meter_dcu_idx" ON "meter" USING btree ("dcu_id");--> statement-breakpoint
CREATE INDEX "meter_status_idx" ON "meter" USING btree ("status");--> statement-breakpoint
CREATE INDEX "meter_position_idx" ON "meter" USING btree ("latitude","longitude");--> statement-breakpoint
CREATE INDEX "meter_status_history_meter_idx" ON "meter_status_history" USING btree ("meter_id","time");--> statement-breakpoint
CREATE UNIQUE INDEX "meter_type_name_uq" ON "meter_type" USING btree (lower("model_name"));--> statement-breakpoint
CREATE INDEX "meter_type_supplier_idx" ON "meter_type" USING btree ("supplier_id");--> statement-breakpoint
CREATE UNIQUE INDEX "poc_no_uq" ON "poc" USING btree (lower("poc_no"));--> statement-breakpoint
CREATE UNIQUE INDEX "poc_meter_uq" ON "poc" USING btree ("meter_id");--> statement-breakpoint
CREATE INDEX "poc_grid_idx" ON "poc" USING btree ("grid_id","id");--> statement-breakpoint
CREATE INDEX "poc_consumer_idx" ON "poc" USING btree ("consumer_id");--> statement-breakpoint
CREATE INDEX "poc_dcu_idx" ON "poc" USING btree ("dcu_id");--> statement-breakpoint
CREATE UNIQUE INDEX "poc_replacement_seq_uq" ON "poc_replacement" USING btree ("poc_id","seq");--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_code_uq" ON "supplier" USING btree (lower("supplier_code"));--> statement-breakpoint
CREATE UNIQUE INDEX "supplier_name_uq" ON "supplier" USING btree (lower("supplier_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "power_grid_code_uq" ON "power_grid" USING btree (lower("grid_code"));--> statement-breakpoint
CREATE UNIQUE INDEX "power_grid_name_uq" ON "power_grid" USING btree ("parent_id",lower("grid_name"));