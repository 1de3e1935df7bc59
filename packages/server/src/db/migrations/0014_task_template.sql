ALTER TABLE "plan" ADD COLUMN "template_id" varchar(32);--> statement-breakpoint
ALTER TABLE "plan" ADD CONSTRAINT "plan_template_id_plan_template_id_fk" FOREIGN KEY ("template_id") REFERENCES "public"."plan_template"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "plan_template_idx" ON "plan" USING btree ("template_id");