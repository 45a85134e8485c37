CREATE TABLE "policy_texts" (
	"hash" text PRIMARY KEY NOT NULL,
	"sources" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "policy_hash" text;--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "policy_rules" jsonb;