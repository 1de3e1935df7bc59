CREATE TABLE "sys_captcha" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"answer" varchar(16) NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_log" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"log_type" varchar(16) NOT NULL,
	"username" varchar(50) DEFAULT '' NOT NULL,
	"operating_type" varchar(16) DEFAULT '' NOT NULL,
	"log_level" varchar(8) DEFAULT 'info' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"result" integer DEFAULT 200 NOT NULL,
	"ip" varchar(64) DEFAULT '' NOT NULL,
	"ua" varchar(500) DEFAULT '' NOT NULL,
	"os" varchar(64) DEFAULT '' NOT NULL,
	"browser" varchar(64) DEFAULT '' NOT NULL,
	"request_url" varchar(300) DEFAULT '' NOT NULL,
	"time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_notice" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"notice_batch_id" varchar(32) NOT NULL,
	"notice_type" smallint DEFAULT 0 NOT NULL,
	"notice_title" varchar(200) NOT NULL,
	"notice_content" text DEFAULT '' NOT NULL,
	"send_username" varchar(50) NOT NULL,
	"rec_username" varchar(50) NOT NULL,
	"notice_flag" smallint DEFAULT 0 NOT NULL,
	"send_time" timestamp with time zone DEFAULT now() NOT NULL,
	"read_time" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "sys_org" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"org_name" varchar(50) NOT NULL,
	"org_code" varchar(50) DEFAULT '' NOT NULL,
	"pid" varchar(32) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"extend_info" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_resource" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"resource_name" varchar(50) NOT NULL,
	"resource_name_en" varchar(50) NOT NULL,
	"resource_type" smallint NOT NULL,
	"resource_uri" varchar(200) NOT NULL,
	"perms" varchar(100) DEFAULT '' NOT NULL,
	"icon" varchar(50) DEFAULT '' NOT NULL,
	"parent_id" varchar(32) NOT NULL,
	"order_num" integer DEFAULT 0 NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_role" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"role_name" varchar(50) NOT NULL,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"built_in" boolean DEFAULT false NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_role_resource" (
	"role_id" varchar(32) NOT NULL,
	"resource_id" varchar(32) NOT NULL,
	CONSTRAINT "sys_role_resource_role_id_resource_id_pk" PRIMARY KEY("role_id","resource_id")
);
--> statement-breakpoint
CREATE TABLE "sys_session" (
	"token_hash" varchar(64) PRIMARY KEY NOT NULL,
	"user_id" varchar(32) NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ip" varchar(64) DEFAULT '' NOT NULL,
	"ua" varchar(500) DEFAULT '' NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_user" (
	"id" varchar(32) PRIMARY KEY NOT NULL,
	"username" varchar(50) NOT NULL,
	"password_hash" varchar(200) NOT NULL,
	"full_name" varchar(100) DEFAULT '' NOT NULL,
	"phone" varchar(30) DEFAULT '' NOT NULL,
	"email" varchar(100) DEFAULT '' NOT NULL,
	"address" varchar(200) DEFAULT '' NOT NULL,
	"gender" smallint DEFAULT 0 NOT NULL,
	"status" varchar(16) DEFAULT 'enabled' NOT NULL,
	"birthday" date,
	"expiry_date" timestamp with time zone,
	"remark" varchar(500) DEFAULT '' NOT NULL,
	"org_id" varchar(32),
	"language" smallint DEFAULT 1 NOT NULL,
	"failed_logins" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"must_change_password" boolean DEFAULT false NOT NULL,
	"create_time" timestamp with time zone DEFAULT now() NOT NULL,
	"update_time" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sys_user_role" (
	"user_id" varchar(32) NOT NULL,
	"role_id" varchar(32) NOT NULL,
	CONSTRAINT "sys_user_role_user_id_role_id_pk" PRIMARY KEY("user_id","role_id")
);
--> statement-breakpoint
ALTER TABLE "sys_role_resource" ADD CONSTRAINT "sys_role_resource_role_id_sys_role_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."sys_role"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_role_resource" ADD CONSTRAINT "sys_role_resource_resource_id_sys_resource_id_fk" FOREIGN KEY ("resource_id") REFERENCES "public"."sys_resource"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_session" ADD CONSTRAINT "sys_session_user_id_sys_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."sys_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_user" ADD CONSTRAINT "sys_user_org_id_sys_org_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."sys_org"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_user_role" ADD CONSTRAINT "sys_user_role_user_id_sys_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."sys_user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sys_user_role" ADD CONSTRAINT "sys_user_role_role_id_sys_role_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."sys_role"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "sys_log_time_idx" ON "sys_log" USING btree ("time");--> statement-breakpoint
CREATE INDEX "sys_log_type_time_idx" ON "sys_log" USING btree ("log_type","time");--> statement-breakpoint
CREATE INDEX "sys_log_user_time_idx" ON "sys_log" USING btree ("username","time");--> statement-breakpoint
CREATE INDEX "sys_notice_unread_idx" ON "sys_notice" USING btree ("rec_username") WHERE notice_flag = 0;--> statement-breakpoint
CREATE INDEX "sys_notice_batch_idx" ON "sys_notice" USING btree ("notice_batch_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_org_name_uq" ON "sys_org" USING btree ("org_name");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_resource_uri_uq" ON "sys_resource" USING btree ("resource_uri");--> statement-breakpoint
CREATE INDEX "sys_resource_parent_idx" ON "sys_resource" USING btree ("parent_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_role_name_uq" ON "sys_role" USING btree ("role_name");--> statement-breakpoint
CREATE INDEX "sys_role_resource_res_idx" ON "sys_role_resource" USING btree ("resource_id");--> statement-breakpoint
CREATE INDEX "sys_session_user_idx" ON "sys_session" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sys_user_username_uq" ON "sys_user" USING btree ("username");--> statement-breakpoint
CREATE INDEX "sys_user_role_role_idx" ON "sys_user_role" USING btree ("role_id");