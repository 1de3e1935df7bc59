CREATE TABLE "archive_import" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"entity" varchar(32) NOT NULL,
	"username" varchar(50) NOT NULL,
	"user_id" varchar(32) NOT NULL,
	"language" integer DEFAULT 1 NOT NULL,
	"file_name" varchar(200) DEFAULT '' NOT NULL,
	"content" "bytea",
	"job_id" varchar(64) DEFAULT '' NOT NULL,
	"state" varchar(16) DEFAULT 'queued' NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"imported" integer DEFAULT 0 NOT NULL,
	"error_count" integer DEFAULT 0 NOT NULL,
	"errors" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"finish_time" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "archive_import_user_idx" ON "archive_import" USING btree ("username","create_time");