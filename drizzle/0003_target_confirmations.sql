CREATE TABLE "target_confirmations" (
	"run_id" text NOT NULL,
	"plan_version" integer NOT NULL,
	"step_id" text NOT NULL,
	"tool" text NOT NULL,
	"risk" text NOT NULL,
	"targets" jsonb NOT NULL,
	"late_bound" jsonb NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"decided_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"decided_at" timestamp with time zone,
	CONSTRAINT "target_confirmations_run_id_plan_version_step_id_pk" PRIMARY KEY("run_id","plan_version","step_id")
);
--> statement-breakpoint
ALTER TABLE "target_confirmations" ADD CONSTRAINT "target_confirmations_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;