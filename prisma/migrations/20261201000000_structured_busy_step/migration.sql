-- The busy step becomes structured ({ "kind": ..., "target": ... }) so that every client words it in the
-- language of its person. Steps of the three fixed kinds carry over. The English description of a tool
-- call cannot be parsed back and becomes thinking (the next step of the run overwrites it anyway).
ALTER TABLE "Run" ALTER COLUMN "busyStep" SET DATA TYPE JSONB USING (
  CASE
    WHEN "busyStep" IS NULL THEN NULL
    WHEN "busyStep" = 'booting the computer' THEN '{"kind":"booting"}'::jsonb
    WHEN "busyStep" = 'waking the computer' THEN '{"kind":"waking"}'::jsonb
    ELSE '{"kind":"thinking"}'::jsonb
  END
);
