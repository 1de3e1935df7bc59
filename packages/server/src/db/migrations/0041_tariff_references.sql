ALTER TABLE "meter" ALTER COLUMN "tariff_id" SET DATA TYPE varchar(32);--> statement-breakpoint
ALTER TABLE "meter" ALTER COLUMN "tariff_id" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "meter" ALTER COLUMN "tariff_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "poc" ALTER COLUMN "tariff_id" SET DATA TYPE varchar(32);--> statement-breakpoint
ALTER TABLE "poc" ALTER COLUMN "tariff_id" DROP DEFAULT;--> statement-breakpoint
ALTER TABLE "poc" ALTER COLUMN "tariff_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "meter" ADD CONSTRAINT "meter_tariff_id_tariff_id_fk" FOREIGN KEY ("tariff_id") REFERENCES "public"."tariff"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "poc" ADD CONSTRAINT "poc_tariff_id_tariff_id_fk" FOREIGN KEY ("tariff_id") REFERENCES "public"."tariff"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "poc_tariff_idx" ON "poc" USING btree ("tariff_id");