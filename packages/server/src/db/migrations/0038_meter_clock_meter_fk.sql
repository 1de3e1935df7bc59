-- Written by hand: the rows of meters deleted since their last check, which the key below refuses.
DELETE FROM "meter_clock" c WHERE NOT EXISTS (SELECT 1 FROM "meter" m WHERE m."id" = c."meter_id");--> statement-breakpoint
ALTER TABLE "meter_clock" ADD CONSTRAINT "meter_clock_meter_id_meter_id_fk" FOREIGN KEY ("meter_id") REFERENCES "public"."meter"("id") ON DELETE cascade ON UPDATE no action;