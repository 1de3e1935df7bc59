ALTER TABLE "sys_log" ADD COLUMN "search_text" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Entries written before can only be found by their stored text.
UPDATE "sys_log" SET "search_text" = "content";
