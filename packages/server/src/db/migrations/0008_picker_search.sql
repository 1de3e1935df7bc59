-- Pickers and list filters look for part of a key ("contains"): trigram indexes find it among millions of rows.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX "comm_module_no_trgm" ON "comm_module" USING gin ("module_no" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "consumer_code_trgm" ON "consumer" USING gin ("consumer_code" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "consumer_name_trgm" ON "consumer" USING gin ("consumer_name" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "meter_dev_addr_trgm" ON "meter" USING gin ("dev_addr" gin_trgm_ops);--> statement-breakpoint
CREATE INDEX "poc_no_trgm" ON "poc" USING gin ("poc_no" gin_trgm_ops);