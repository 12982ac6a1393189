-- Instance-wide settings an instance admin changes (the admin API), written on the first change. One row at
-- most: the unique index on a constant keeps it so (Prisma's schema cannot say it, so it lives here).
CREATE TABLE "InstanceSettings" (
    "id" INTEGER NOT NULL DEFAULT 1,
    "allowLocalModelServers" BOOLEAN NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "InstanceSettings_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "InstanceSettings_one_row" ON "InstanceSettings" ((true));
