-- The agent's version (agent.version) from the host's newest report, so the fleet shows it and the findings can judge
-- agents older than this server. NULL until the host's first report after this migration is stored.
ALTER TABLE "hosts" ADD COLUMN "agent_version" TEXT;
