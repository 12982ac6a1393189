import { Controller, HttpCode, Post } from '@nestjs/common';
import { vaultResealReportSchema, type VaultResealReport } from '@lazyboy/contracts';
import { AdminOnly, CurrentPrincipal, type Principal } from '../auth/principal.js';
import { ApiRoute } from '../common/route-docs.js';
import { KeyRotation } from './key-rotation.service.js';

@Controller('api/admin/vault-key')
@AdminOnly()
export class VaultKeyController {
  constructor(private readonly rotation: KeyRotation) {}

  @Post('reseal')
  @HttpCode(200)
  @ApiRoute({
    summary: 'Re-seal every stored secret under the current LAZYBOY_VAULT_KEY (after a rotation), so old keys can be retired',
    response: vaultResealReportSchema,
    tag: 'admin',
  })
  reseal(@CurrentPrincipal() principal: Principal): Promise<VaultResealReport> {
    return this.rotation.reseal(principal.userId);
  }
}
