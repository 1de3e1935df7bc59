CREATE TABLE "event_definition" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"code" integer NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" varchar(500) DEFAULT '' NOT NULL,
	"level" varchar(16) NOT NULL,
	"parent_id" varchar(32),
	"analytical_way" varchar(200) DEFAULT '' NOT NULL,
	"cumulative_number" integer DEFAULT 0 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "obis_item" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"obis" varchar(32) NOT NULL,
	"class_id" smallint NOT NULL,
	"attribute" smallint NOT NULL,
	"description" varchar(200) NOT NULL,
	"unit" smallint DEFAULT 255 NOT NULL,
	"scaler" smallint DEFAULT 0 NOT NULL,
	"cg_name" varchar(50) NOT NULL,
	"channel_option" boolean DEFAULT false NOT NULL,
	"threshold_option" boolean DEFAULT false NOT NULL,
	"setting_channel" boolean DEFAULT false NOT NULL,
	"display_option" boolean DEFAULT false NOT NULL,
	"read_instantly" boolean DEFAULT false NOT NULL,
	"read_periodically" boolean DEFAULT false NOT NULL,
	"rate_data_type" varchar(50) DEFAULT '' NOT NULL,
	"common_config" boolean DEFAULT false NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "event_definition" ADD CONSTRAINT "event_definition_parent_id_event_definition_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."event_definition"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "event_definition_code_uq" ON "event_definition" USING btree ("code");--> statement-breakpoint
CREATE UNIQUE INDEX "event_definition_name_uq" ON "event_definition" USING btree (lower("name"));--> statement-breakpoint
CREATE UNIQUE INDEX "obis_item_obis_uq" ON "obis_item" USING btree (lower("obis"));--> statement-breakpoint
CREATE UNIQUE INDEX "obis_item_cg_name_uq" ON "obis_item" USING btree (lower("cg_name"));