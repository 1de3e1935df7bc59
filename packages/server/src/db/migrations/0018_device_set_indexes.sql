CREATE INDEX "meter_supplier_idx" ON "meter" USING btree ("supplier_id");--> statement-breakpoint
CREATE INDEX "meter_meter_type_idx" ON "meter" USING btree ("meter_type_id");--> statement-breakpoint
CREATE INDEX "meter_tariff_idx" ON "meter" USING btree ("tariff_id");