CREATE TABLE "device_credential" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"kind" varchar(8) NOT NULL,
	"device_key" varchar(50) NOT NULL,
	"sealed_secret" text NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"rotate_time" timestamp with time zone,
	CONSTRAINT "device_credential_kind_ck" CHECK ("device_credential"."kind" in ('dcu', 'meter'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "device_credential_key_uq" ON "device_credential" USING btree ("kind",lower("device_key"));