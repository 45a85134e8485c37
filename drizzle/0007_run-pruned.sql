ALTER TABLE "runs" ADD COLUMN "pruned_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "runs_finished_idx" ON "runs" USING btree ("finished_at");