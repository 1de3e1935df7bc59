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
ALTER TABLE "prepaid_exception" ADD CONSTRAINT "prepaid_exception_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "prepaid_exception_time_idx" ON "prepaid_exception" USING btree ("check_time","id");