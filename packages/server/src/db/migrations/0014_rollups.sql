CREATE TABLE "rollup_grid_day" (
	"grid_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"meters" integer NOT NULL,
	"consumption" bigint NOT NULL,
	"meters_with_consumption" integer NOT NULL,
	"intervals" bigint NOT NULL,
	"demand_max" integer,
	"events_regular" integer DEFAULT 0 NOT NULL,
	"events_medium" integer DEFAULT 0 NOT NULL,
	"events_severe" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_grid_day_grid_id_day_pk" PRIMARY KEY("grid_id","day")
);
--> statement-breakpoint
CREATE TABLE "rollup_meter_day" (
	"meter_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"grid_id" varchar(32) NOT NULL,
	"consumption" bigint,
	"intervals" integer DEFAULT 0 NOT NULL,
	"demand_min" integer,
	"demand_max" integer,
	"demand_avg" integer,
	"events_regular" integer DEFAULT 0 NOT NULL,
	"events_medium" integer DEFAULT 0 NOT NULL,
	"events_severe" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_meter_day_meter_id_day_pk" PRIMARY KEY("meter_id","day")
);
--> statement-breakpoint
CREATE TABLE "rollup_pending" (
	"meter_id" varchar(32) NOT NULL,
	"day" date NOT NULL,
	"marked_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "rollup_pending_meter_id_day_pk" PRIMARY KEY("meter_id","day")
);
--> statement-breakpoint
CREATE INDEX "rollup_grid_day_day_idx" ON "rollup_grid_day" USING btree ("day");--> statement-breakpoint
CREATE INDEX "rollup_meter_day_grid_idx" ON "rollup_meter_day" USING btree ("grid_id","day");