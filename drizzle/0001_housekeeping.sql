CREATE TABLE "reminders" (
	"run_id" text NOT NULL,
	"kind" text NOT NULL,
	"key" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "reminders_run_id_kind_key_pk" PRIMARY KEY("run_id","kind","key")
);
--> statement-breakpoint
ALTER TABLE "reminders" ADD CONSTRAINT "reminders_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;