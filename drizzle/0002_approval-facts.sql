ALTER TABLE "approvals" ADD COLUMN "via" text DEFAULT 'person' NOT NULL;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "need" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "why" text;