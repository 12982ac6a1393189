import { Module } from '@nestjs/common';
import { MemoryRepository } from './memory.repository.js';

@Module({ providers: [MemoryRepository], exports: [MemoryRepository] })
export class MemoryModule {}
