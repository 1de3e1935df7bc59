CREATE TABLE "billing_rule" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"rule_no" varchar(50) NOT NULL,
	"rule_name" varchar(100) NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"handling_fee" numeric(12, 2) DEFAULT 0 NOT NULL,
	"taxes" numeric(5, 2) DEFAULT 0 NOT NULL,
	"rounding_base" double precision NOT NULL,
	"charge_mode" varchar(16) DEFAULT 'fixed' NOT NULL,
	"fixed_amount" numeric(12, 2),
	"percentage" numeric(5, 2),
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "billing_rule_meter" (
	"rule_id" varchar(32) NOT NULL,
	"role" varchar(8) NOT NULL,
	"position" integer NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	CONSTRAINT "billing_rule_meter_rule_id_role_position_pk" PRIMARY KEY("rule_id","role","position")
);
--> statement-breakpoint
CREATE TABLE "virtual_meter_member" (
	"virtual_id" varchar(32) NOT NULL,
	"member_id" varchar(32) NOT NULL,
	"channel" varchar(16) NOT NULL,
	"sign" smallint NOT NULL,
	"position" integer NOT NULL,
	CONSTRAINT "virtual_meter_member_virtual_id_member_id_channel_pk" PRIMARY KEY("virtual_id","member_id","channel")
);
--> statement-breakpoint
ALTER TABLE "billing_rule" ADD CONSTRAINT "billing_rule_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_rule_meter" ADD CONSTRAINT "billing_rule_meter_rule_id_billing_rule_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."billing_rule"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "billing_rule_meter" ADD CONSTRAINT "billing_rule_meter_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "virtual_meter_member" ADD CONSTRAINT "virtual_meter_member_virtual_id_meter_id_fk" FOREIGN KEY ("virtual_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "virtual_meter_member" ADD CONSTRAINT "virtual_meter_member_member_id_meter_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."meter"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "billing_rule_name_uq" ON "billing_rule" USING btree (lower("rule_name"));--> statement-breakpoint
CREATE INDEX "billing_rule_name_idx" ON "billing_rule" USING btree ("rule_name","id");--> statement-breakpoint
CREATE INDEX "billing_rule_grid_idx" ON "billing_rule" USING btree ("grid_id","rule_name","id");--> statement-breakpoint
CREATE INDEX "billing_rule_meter_meter_idx" ON "billing_rule_meter" USING btree ("meter_id");--> statement-breakpoint
CREATE INDEX "virtual_meter_member_member_idx" ON "virtual_meter_member" USING btree ("member_id");