-- People and settings are stored as data (a JSON array of words and {"user"} / {"setting"} parts); a row written before keeps its words as one JSON string.
ALTER TABLE "escalations" ALTER COLUMN "message" SET DATA TYPE jsonb USING to_jsonb("message");--> statement-breakpoint
ALTER TABLE "plan_versions" ALTER COLUMN "reason" SET DATA TYPE jsonb USING to_jsonb("reason");
