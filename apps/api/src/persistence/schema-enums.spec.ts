import { describe, expect, it } from '@jest/globals';
import * as contracts from '@lazyboy/contracts';
import * as prisma from './generated/enums.js';

// libs/contracts and prisma/schema.prisma each declare the domain's enums; they must never drift apart.
describe('domain enums', () => {
  const pairs = {
    MembershipRole: contracts.membershipRoleSchema,
    SignupPolicy: contracts.signupPolicySchema,
    ComputerMode: contracts.computerModeSchema,
    ComputerState: contracts.computerStateSchema,
    ControlHolder: contracts.controlHolderSchema,
    MessageRole: contracts.messageRoleSchema,
    RunKind: contracts.runKindSchema,
    RunStatus: contracts.runStatusSchema,
    MemorySource: contracts.memorySourceSchema,
    SkillStatus: contracts.skillStatusSchema,
    McpTransport: contracts.mcpTransportSchema,
  } as const;

  it.each(Object.entries(pairs))('%s has the same values in the contracts and the database schema', (name, schema) => {
    const database = (prisma as unknown as Record<string, Record<string, string>>)[name];
    expect(database).toBeDefined();
    expect(Object.values(database!)).toEqual(schema.options);
  });

  it('covers every enum of the database schema', () => {
    const databaseEnums = Object.keys(prisma).filter((key) => /^[A-Z]/.test(key) && key !== '$Enums');
    expect(databaseEnums.sort()).toEqual(Object.keys(pairs).sort());
  });

  it('splits run statuses into active and final without overlap', () => {
    const all = [...contracts.ACTIVE_RUN_STATUSES, ...contracts.FINAL_RUN_STATUSES, 'queued'];
    expect(new Set(all).size).toBe(all.length);
    expect(all.sort()).toEqual([...contracts.runStatusSchema.options].sort());
  });
});
