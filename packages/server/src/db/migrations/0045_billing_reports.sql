CREATE TABLE "billing_report" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"kind" varchar(24) NOT NULL,
	"report_name" varchar(100) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"rule_id" varchar(32),
	"conditions" jsonb NOT NULL,
	"status" varchar(16) DEFAULT 'building' NOT NULL,
	"progress" integer DEFAULT 0 NOT NULL,
	"job_id" varchar(40),
	"created_by" varchar(32),
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"generate_time" timestamp with time zone,
	"delete_time" timestamp with time zone NOT NULL,
	"failure" varchar(64),
	"rows" jsonb
);
--> statement-breakpoint
ALTER TABLE "billing_report" ADD CONSTRAINT "billing_report_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_report" ADD CONSTRAINT "billing_report_rule_id_billing_rule_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."billing_rule"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_report" ADD CONSTRAINT "billing_report_created_by_sys_user_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."sys_user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_report_kind_idx" ON "billing_report" USING btree ("kind","create_time");--> statement-breakpoint
CREATE INDEX "billing_report_delete_idx" ON "billing_report" USING btree ("delete_time");