import { Controller, Get, Post } from '@nestjs/common';
import {
  answerRunRequestSchema,
  runEventViewSchema,
  runListViewSchema,
  runViewSchema,
  type AnswerRunRequest,
  type RunEventView,
  type RunListView,
  type RunView,
} from '@lazyboy/contracts';
import { z } from 'zod';
import { CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { IdParam, ZodBody, ZodQuery } from '../common/zod-params.js';
import { RunsService } from './runs.service.js';

const eventsQuerySchema = z.strictObject({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1_000).default(200),
});

@Controller('api/runs')
export class RunsController {
  constructor(private readonly runs: RunsService) {}

  @Get(':runId')
  @ApiRoute({ summary: "A run's status, busy step and question", response: runViewSchema, tag: 'runs' })
  get(@CurrentPrincipal() principal: Principal, @IdParam('runId') runId: string): Promise<RunView> {
    return this.runs.get(principal, runId);
  }

  @Get(':runId/events')
  @ApiRoute({ summary: "A run's typed events in order (after a seq)", response: z.array(runEventViewSchema), tag: 'runs' })
  events(
    @CurrentPrincipal() principal: Principal,
    @IdParam('runId') runId: string,
    @ZodQuery(eventsQuerySchema) query: z.infer<typeof eventsQuerySchema>,
  ): Promise<RunEventView[]> {
    return this.runs.events(principal, runId, query.after, query.limit);
  }

  @Post(':runId/cancel')
  @ApiRoute({ summary: 'Stop a run (at the next safe boundary if it is executing)', response: runViewSchema, tag: 'runs' })
  cancel(@CurrentPrincipal() principal: Principal, @IdParam('runId') runId: string): Promise<RunView> {
    return this.runs.cancel(principal, runId);
  }

  @Post(':runId/answer')
  @ApiRoute({ summary: 'Answer the question a run waits on (waiting_input)', response: runViewSchema, tag: 'runs' })
  answer(
    @CurrentPrincipal() principal: Principal,
    @IdParam('runId') runId: string,
    @ZodBody(answerRunRequestSchema) body: AnswerRunRequest,
  ): Promise<RunView> {
    return this.runs.answer(principal, runId, body.text);
  }
}

@Controller('api/workspaces/:workspaceId/runs')
export class WorkspaceRunsController {
  constructor(private readonly runs: RunsService) {}

  @Get('active')
  @ApiRoute({
    summary: "The workspace's queued, executing and parked runs, oldest first: what each agent is busy with",
    response: runListViewSchema,
    tag: 'runs',
  })
  async active(@CurrentPrincipal() principal: Principal, @IdParam('workspaceId') workspaceId: string): Promise<RunListView> {
    return { items: await this.runs.activeInWorkspace(principal, workspaceId) };
  }
}
