import { Controller, Get, Res } from '@nestjs/common';
import type { ApiErrorBody, LivenessReport, ReadinessReport } from '@lazyboy/contracts';
import type { Response } from 'express';
import { Public } from '../auth/principal.js';
import { ReadinessService } from './readiness.service.js';

// Probes of load balancers and orchestrators carry no credentials.
@Public()
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** The process is up and serving HTTP; says nothing about dependencies. */
  @Get('healthz')
  healthz(): LivenessReport {
    return { status: 'ok', uptimeSeconds: Math.round(process.uptime()) };
  }

  /** 200 when Postgres and Redis answer; 503 naming the failing ones otherwise. */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) res: Response): Promise<ReadinessReport | (ReadinessReport & ApiErrorBody)> {
    const report = await this.readiness.check();
    if (report.status === 'ready') return report;
    res.status(503);
    return {
      ...report,
      error: { code: 'NOT_READY', message: `not ready: ${report.failing.join(', ')} unreachable` },
    };
  }
}
