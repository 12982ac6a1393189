import { Module, type DynamicModule } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module.js';
import { API_CONFIG, type ApiConfig } from './config/api-config.js';
import { HealthModule } from './health/health.module.js';
import { MemoryModule } from './memory/memory.module.js';
import { PersistenceModule } from './persistence/persistence.module.js';
import { RedisModule } from './redis/redis.module.js';
import { TenancyCoreModule } from './tenancy/tenancy-core.module.js';

@Module({})
export class AppModule {
  /** The whole API for one validated configuration (tests build it with their own). */
  static forConfig(config: ApiConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.with(config),
        PersistenceModule,
        RedisModule,
        TenancyCoreModule,
        HealthModule,
        AccountsModule,
        MemoryModule,
      ],
    };
  }
}

@Module({})
class ConfigModule {
  static with(config: ApiConfig): DynamicModule {
    return { module: ConfigModule, global: true, providers: [{ provide: API_CONFIG, useValue: config }], exports: [API_CONFIG] };
  }
}
