-- One executing or parked run per agent, held by the database itself: the accept path may lease a new run
-- directly and executors claim side by side, and whichever races lose get a unique violation instead of a
-- second run driving the same agent. (A partial index: Prisma's schema cannot express it, so it lives here.)
CREATE UNIQUE INDEX "Run_one_executing_per_bot" ON "Run"("botId")
  WHERE status IN ('leased', 'running', 'waiting_takeover', 'waiting_input');
