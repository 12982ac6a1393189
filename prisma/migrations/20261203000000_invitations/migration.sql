-- Invitations to a workspace (a single-use link for one email, only the token's SHA-256 kept) and the
-- instance's sign-up policy. Instance settings become each optional: a null one has not been set by an
-- instance admin, and its environment variable decides (before, the row existed only once
-- allowLocalModelServers had been set, so existing rows keep their value).
CREATE TYPE "SignupPolicy" AS ENUM ('invite', 'open', 'closed');

ALTER TABLE "InstanceSettings" ALTER COLUMN "allowLocalModelServers" DROP NOT NULL,
ADD COLUMN     "signupPolicy" "SignupPolicy";

CREATE TABLE "Invitation" (
    "id" UUID NOT NULL,
    "workspaceId" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "MembershipRole" NOT NULL,
    "tokenHash" TEXT NOT NULL,
    "invitedById" UUID,
    "expiresAt" TIMESTAMPTZ(3) NOT NULL,
    "acceptedAt" TIMESTAMPTZ(3),
    "acceptedById" UUID,
    "revokedAt" TIMESTAMPTZ(3),
    "revokedById" UUID,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Invitation_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "Invitation_tokenHash_key" ON "Invitation"("tokenHash");

CREATE INDEX "Invitation_workspaceId_createdAt_idx" ON "Invitation"("workspaceId", "createdAt" DESC);

CREATE INDEX "Invitation_invitedById_idx" ON "Invitation"("invitedById");

ALTER TABLE "Invitation" ADD CONSTRAINT "Invitation_workspaceId_fkey" FOREIGN KEY ("workspaceId") REFERENCES "Workspace"("id") ON DELETE CASCADE ON UPDATE CASCADE;

ALTER TABLE "Invitation" ADD CONSTRAINT "Invitation_invitedById_fkey" FOREIGN KEY ("invitedById") REFERENCES "User"("id") ON DELETE SET NULL ON UPDATE CASCADE;
