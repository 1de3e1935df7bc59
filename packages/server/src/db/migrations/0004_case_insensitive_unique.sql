DROP INDEX "sys_role_name_uq";--> statement-breakpoint
DROP INDEX "sys_group_name_uq";--> statement-breakpoint
DROP INDEX "sys_group_code_uq";--> statement-breakpoint
DROP INDEX "sys_org_name_uq";--> statement-breakpoint
DROP INDEX "sys_user_username_uq";--> statement-breakpoint
CREATE UNIQUE INDEX "sys_resource_name_uq" ON "sys_resource" USING btree ("parent_id",lower("resource_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_resource_name_en_uq" ON "sys_resource" USING btree ("parent_id",lower("resource_name_en"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_org_code_uq" ON "sys_org" USING btree (lower("org_code"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_role_name_uq" ON "sys_role" USING btree (lower("role_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_group_name_uq" ON "sys_group" USING btree (lower("group_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_group_code_uq" ON "sys_group" USING btree (lower("group_code"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_org_name_uq" ON "sys_org" USING btree (lower("org_name"));--> statement-breakpoint
CREATE UNIQUE INDEX "sys_user_username_uq" ON "sys_user" USING btree (lower("username"));