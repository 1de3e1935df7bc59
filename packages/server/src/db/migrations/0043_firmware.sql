CREATE TABLE "firmware" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" varchar(500) DEFAULT '' NOT NULL,
	"equipment" varchar(24) NOT NULL,
	"upgrade_method" varchar(12) NOT NULL,
	"target_version" varchar(32) NOT NULL,
	"split_size" integer NOT NULL,
	"image_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "firmware_broadcast" (
	"campaign_id" varchar(32) NOT NULL,
	"dcu_no" varchar(50) NOT NULL,
	"canary" boolean NOT NULL,
	"dcu_id" varchar(32),
	"grid_id" varchar(32) NOT NULL,
	"state" varchar(8) DEFAULT 'sending' NOT NULL,
	"next_block" integer DEFAULT 0 NOT NULL,
	"command_id" varchar(32),
	"seq" integer DEFAULT 0 NOT NULL,
	"errors" smallint DEFAULT 0 NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "firmware_broadcast_campaign_id_dcu_no_canary_pk" PRIMARY KEY("campaign_id","dcu_no","canary")
);
--> statement-breakpoint
CREATE TABLE "firmware_campaign" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"firmware_id" varchar(32) NOT NULL,
	"image_id" varchar(32) NOT NULL,
	"target_version" varchar(32) NOT NULL,
	"method" varchar(12) NOT NULL,
	"block_size" integer NOT NULL,
	"blocks" integer NOT NULL,
	"image_size" integer NOT NULL,
	"sha256" varchar(64) NOT NULL,
	"state" varchar(12) NOT NULL,
	"paused_reason" varchar(12),
	"canary_count" integer NOT NULL,
	"max_failure_percent" smallint NOT NULL,
	"failures_accepted" integer DEFAULT 0 NOT NULL,
	"job_id" varchar(36),
	"created_by" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL,
	"finish_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "firmware_campaign_device" (
	"campaign_id" varchar(32) NOT NULL,
	"device_kind" varchar(8) NOT NULL,
	"device_key" varchar(50) NOT NULL,
	"position" integer NOT NULL,
	"canary" boolean NOT NULL,
	"meter_id" varchar(32),
	"dcu_id" varchar(32),
	"via_dcu" varchar(50),
	"grid_id" varchar(32) NOT NULL,
	"step" varchar(12) DEFAULT 'waiting' NOT NULL,
	"next_block" integer DEFAULT 0 NOT NULL,
	"command_id" varchar(32),
	"seq" integer DEFAULT 0 NOT NULL,
	"errors" smallint DEFAULT 0 NOT NULL,
	"from_version" varchar(64) DEFAULT '' NOT NULL,
	"current_version" varchar(64) DEFAULT '' NOT NULL,
	"reason" varchar(40),
	"update_time" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "firmware_campaign_device_campaign_id_device_kind_device_key_pk" PRIMARY KEY("campaign_id","device_kind","device_key")
);
--> statement-breakpoint
CREATE TABLE "firmware_image" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"sha256" varchar(64) NOT NULL,
	"size" integer NOT NULL,
	"content" "bytea" NOT NULL,
	"file_name" varchar(200) NOT NULL,
	"uploaded_by" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "firmware" ADD CONSTRAINT "firmware_image_id_firmware_image_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."firmware_image"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmware_broadcast" ADD CONSTRAINT "firmware_broadcast_campaign_id_firmware_campaign_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."firmware_campaign"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmware_campaign" ADD CONSTRAINT "firmware_campaign_firmware_id_firmware_id_fk" FOREIGN KEY ("firmware_id") REFERENCES "public"."firmware"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmware_campaign" ADD CONSTRAINT "firmware_campaign_image_id_firmware_image_id_fk" FOREIGN KEY ("image_id") REFERENCES "public"."firmware_image"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "firmware_campaign_device" ADD CONSTRAINT "firmware_campaign_device_campaign_id_firmware_campaign_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."firmware_campaign"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "firmware_name_uq" ON "firmware" USING btree (lower("name"));--> statement-breakpoint
CREATE INDEX "firmware_image_idx" ON "firmware" USING btree ("image_id");--> statement-breakpoint
CREATE INDEX "firmware_campaign_firmware_idx" ON "firmware_campaign" USING btree ("firmware_id","create_time");--> statement-breakpoint
CREATE INDEX "firmware_campaign_device_key_idx" ON "firmware_campaign_device" USING btree ("device_kind","device_key");