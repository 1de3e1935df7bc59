CREATE TABLE "sys_login_failure" (
	"username" varchar(50) NOT NULL,
	"ip" varchar(64) NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"last_failure_at" timestamp with time zone DEFAULT now() NOT NULL,
	"locked_until" timestamp with time zone,
	CONSTRAINT "sys_login_failure_username_ip_pk" PRIMARY KEY("username","ip")
);
