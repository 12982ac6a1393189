-- A parked run (waiting for an answer or for a person to hand the screen back) holds its agent for every
-- chat: it now ends as blocked once it has waited LAZYBOY_PARKED_RUN_HOURS. Runs parked before this
-- migration count from their last change.
ALTER TABLE "Run" ADD COLUMN "parkedAt" TIMESTAMPTZ(3);
UPDATE "Run" SET "parkedAt" = "updatedAt" WHERE status IN ('waiting_input', 'waiting_takeover');
CREATE INDEX "Run_status_parkedAt_idx" ON "Run"("status", "parkedAt");
