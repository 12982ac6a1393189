-- Each instance setting follows its environment variable until an instance admin first sets it: a null
-- column is one nobody set. Whether the host's environment model serves every workspace or only the first.
ALTER TABLE "InstanceSettings" ALTER COLUMN "allowLocalModelServers" DROP NOT NULL;
ALTER TABLE "InstanceSettings" ADD COLUMN "environmentModelForAllWorkspaces" BOOLEAN;
