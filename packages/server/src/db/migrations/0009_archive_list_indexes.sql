DROP INDEX "meter_position_idx";--> statement-breakpoint
DROP INDEX "comm_module_grid_idx";--> statement-breakpoint
DROP INDEX "consumer_grid_idx";--> statement-breakpoint
DROP INDEX "dcu_grid_idx";--> statement-breakpoint
DROP INDEX "meter_status_idx";--> statement-breakpoint
DROP INDEX "poc_grid_idx";--> statement-breakpoint
CREATE INDEX "comm_module_no_idx" ON "comm_module" USING btree ("module_no","id");--> statement-breakpoint
CREATE INDEX "consumer_code_idx" ON "consumer" USING btree ("consumer_code","id");--> statement-breakpoint
CREATE INDEX "dcu_no_idx" ON "dcu" USING btree ("dcu_no","id");--> statement-breakpoint
CREATE INDEX "meter_grid_status_idx" ON "meter" USING btree ("grid_id","status","id");--> statement-breakpoint
CREATE INDEX "meter_update_time_idx" ON "meter" USING btree ("update_time","id");--> statement-breakpoint
CREATE INDEX "meter_grid_update_time_idx" ON "meter" USING btree ("grid_id","update_time","id");--> statement-breakpoint
CREATE INDEX "poc_no_idx" ON "poc" USING btree ("poc_no","id");--> statement-breakpoint
CREATE INDEX "comm_module_grid_idx" ON "comm_module" USING btree ("grid_id","module_no","id");--> statement-breakpoint
CREATE INDEX "consumer_grid_idx" ON "consumer" USING btree ("grid_id","consumer_code","id");--> statement-breakpoint
CREATE INDEX "dcu_grid_idx" ON "dcu" USING btree ("grid_id","dcu_no","id");--> statement-breakpoint
CREATE INDEX "meter_status_idx" ON "meter" USING btree ("status","id");--> statement-breakpoint
CREATE INDEX "poc_grid_idx" ON "poc" USING btree ("grid_id","poc_no","id");--> statement-breakpoint
-- The map (modules/archive/gis.ts) finds what a viewport holds through these and reads nothing else:
-- each carries what the clustering aggregates, so the table is never visited. Written by hand because
-- drizzle cannot declare INCLUDE; a later generated migration leaves them alone.
CREATE INDEX "meter_position_idx" ON "meter" USING gist (point("longitude", "latitude")) INCLUDE ("latitude", "longitude", "status", "grid_id", "id");--> statement-breakpoint
CREATE INDEX "consumer_position_idx" ON "consumer" USING gist (point("longitude", "latitude")) INCLUDE ("latitude", "longitude", "protected", "grid_id", "id");