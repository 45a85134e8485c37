CREATE TABLE "wait_messages" (
	"run_id" text NOT NULL,
	"wait" text NOT NULL,
	"key" text NOT NULL,
	"channel" text NOT NULL,
	"ts" text NOT NULL,
	"permalink" text,
	"posted_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "wait_messages_run_id_wait_key_pk" PRIMARY KEY("run_id","wait","key")
);
--> statement-breakpoint
ALTER TABLE "wait_messages" ADD CONSTRAINT "wait_messages_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;