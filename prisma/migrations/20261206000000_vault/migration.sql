-- The vault (#17): an account is an agent's or, with no agent, its workspace's shared one (VaultGrant
-- names the agents that may use it). The key a secret was sealed with is named inside its cipher now
-- (SecretBox), so keyVersion goes, and hasTotp lets the model's list say "2FA stored" without opening it.

ALTER TABLE "VaultAccount" DROP COLUMN "keyVersion";
ALTER TABLE "VaultAccount" ADD COLUMN "hasTotp" BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE "VaultAccount" ALTER COLUMN "agentId" DROP NOT NULL;

CREATE TABLE "VaultGrant" (
    "accountId" UUID NOT NULL,
    "agentId" UUID NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VaultGrant_pkey" PRIMARY KEY ("accountId","agentId")
);

CREATE INDEX "VaultGrant_agentId_idx" ON "VaultGrant"("agentId");

ALTER TABLE "VaultGrant" ADD CONSTRAINT "VaultGrant_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "VaultAccount"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "VaultGrant" ADD CONSTRAINT "VaultGrant_agentId_fkey" FOREIGN KEY ("agentId") REFERENCES "Agent"("id") ON DELETE CASCADE ON UPDATE CASCADE;
