CREATE TABLE "param_template" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"template_name" varchar(100) NOT NULL,
	"meter_type_id" varchar(32) NOT NULL,
	"items" jsonb NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"created_by" varchar(50) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "param_template" ADD CONSTRAINT "param_template_meter_type_id_meter_type_id_fk" FOREIGN KEY ("meter_type_id") REFERENCES "public"."meter_type"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "param_template_name_uq" ON "param_template" USING btree (lower("template_name"));--> statement-breakpoint
CREATE INDEX "param_template_meter_type_idx" ON "param_template" USING btree ("meter_type_id");