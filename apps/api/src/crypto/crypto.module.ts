import { Module } from '@nestjs/common';
import { KeyRotation } from './key-rotation.service.js';
import { SealedColumnsRepository } from './sealed-columns.repository.js';
import { VaultKeyController } from './vault-key.controller.js';

/** The vault key's rotation (AuditModule is global). */
@Module({ controllers: [VaultKeyController], providers: [KeyRotation, SealedColumnsRepository] })
export class CryptoModule {}
