ALTER TABLE "runs" ADD COLUMN "trace_id" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "trace_span_id" text;