CREATE TABLE "prepaid_exception" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"kind" varchar(24) NOT NULL,
	"grid_id" varchar(32),
	"meter_credit_cents" bigint,
	"ledger_cents" bigint NOT NULL,
	"relay_state" smallint,
	"check_time" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prepaid_ledger" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"consumer_id" varchar(32) NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"recharge_id" varchar(32) NOT NULL,
	"kind" varchar(8) NOT NULL,
	"amount_cents" bigint NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prepaid_meter" (
	"meter_id" varchar(32) PRIMARY KEY NOT NULL,
	"last_tid" integer DEFAULT 0 NOT NULL,
	"credit_cents" bigint,
	"credit_time" timestamp with time zone,
	"overdraft_allowed" boolean DEFAULT false NOT NULL,
	"overdraft_limit_cents" bigint DEFAULT 0 NOT NULL,
	"friendly_time" jsonb DEFAULT '{"hours":[],"weekdays":[],"holidays":[]}'::jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prepaid_recharge" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"client_key" varchar(64) NOT NULL,
	"meter_id" varchar(32) NOT NULL,
	"consumer_id" varchar(32) NOT NULL,
	"grid_id" varchar(32),
	"amount_cents" bigint NOT NULL,
	"allow_overdraft" boolean NOT NULL,
	"state" varchar(12) DEFAULT 'recharging' NOT NULL,
	"failure" varchar(16),
	"tokens" jsonb NOT NULL,
	"command_id" varchar(32),
	"meter_credit_cents" bigint,
	"created_by" varchar(64) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"finish_time" timestamp with time zone,
	"deadline" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "prepaid_exception" ADD CONSTRAINT "prepaid_exception_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_ledger" ADD CONSTRAINT "prepaid_ledger_consumer_id_consumer_id_fk" FOREIGN KEY ("consumer_id") REFERENCES "public"."consumer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_ledger" ADD CONSTRAINT "prepaid_ledger_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_ledger" ADD CONSTRAINT "prepaid_ledger_recharge_id_prepaid_recharge_id_fk" FOREIGN KEY ("recharge_id") REFERENCES "public"."prepaid_recharge"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_meter" ADD CONSTRAINT "prepaid_meter_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_recharge" ADD CONSTRAINT "prepaid_recharge_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_recharge" ADD CONSTRAINT "prepaid_recharge_consumer_id_consumer_id_fk" FOREIGN KEY ("consumer_id") REFERENCES "public"."consumer"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_recharge" ADD CONSTRAINT "prepaid_recharge_grid_id_power_grid_id_fk" FOREIGN KEY ("grid_id") REFERENCES "public"."power_grid"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prepaid_recharge" ADD CONSTRAINT "prepaid_recharge_command_id_device_command_id_fk" FOREIGN KEY ("command_id") REFERENCES "public"."device_command"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "prepaid_exception_time_idx" ON "prepaid_exception" USING btree ("check_time","id");--> statement-breakpoint
CREATE UNIQUE INDEX "prepaid_ledger_entry_uq" ON "prepaid_ledger" USING btree ("recharge_id","kind");--> statement-breakpoint
CREATE INDEX "prepaid_ledger_consumer_idx" ON "prepaid_ledger" USING btree ("consumer_id");--> statement-breakpoint
CREATE UNIQUE INDEX "prepaid_recharge_client_key_uq" ON "prepaid_recharge" USING btree ("created_by","client_key");--> statement-breakpoint
CREATE INDEX "prepaid_recharge_meter_idx" ON "prepaid_recharge" USING btree ("meter_id","create_time");--> statement-breakpoint
CREATE INDEX "prepaid_recharge_time_idx" ON "prepaid_recharge" USING btree ("create_time","id");--> statement-breakpoint
CREATE INDEX "prepaid_recharge_open_idx" ON "prepaid_recharge" USING btree ("command_id") WHERE "prepaid_recharge"."state" = 'recharging';--> statement-breakpoint
-- Money is append-only: a correction is a new entry (a reversal), never an edit or a removal.
CREATE FUNCTION "prepaid_ledger_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'prepaid_ledger is append-only: % refused', TG_OP;
END
$$;--> statement-breakpoint
CREATE TRIGGER "prepaid_ledger_append_only" BEFORE UPDATE OR DELETE ON "prepaid_ledger"
  FOR EACH ROW EXECUTE FUNCTION "prepaid_ledger_append_only"();
