import { Module, type DynamicModule } from '@nestjs/common';
import { AccountsModule } from './accounts/accounts.module.js';
import { AdminModule } from './admin/admin.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { AgentsModule } from './agents/agents.module.js';
import { ComputersModule } from './computers/computers.module.js';
import { CryptoModule } from './crypto/crypto.module.js';
import { API_CONFIG, type ApiConfig } from './config/api-config.js';
import { HealthModule } from './health/health.module.js';
import { InstanceSettingsModule } from './instance/instance-settings.module.js';
import { InvitationsModule } from './invitations/invitations.module.js';
import { LeadershipModule } from './leadership/leadership.module.js';
import { MemoryModule } from './memory/memory.module.js';
import { ModelModule } from './model/model.module.js';
import { OpenApiModule } from './openapi/openapi.module.js';
import { PersistenceModule } from './persistence/persistence.module.js';
import { RealtimeModule } from './realtime/realtime.module.js';
import { RedisModule } from './redis/redis.module.js';
import { RunsModule } from './runs/runs.module.js';
import { ChatsModule } from './chats/chats.module.js';
import { TakeoverModule } from './takeover/takeover.module.js';
import { TenancyCoreModule } from './tenancy/tenancy-core.module.js';
import { WorkspacesModule } from './tenancy/workspaces.module.js';
import { VaultModule } from './vault/vault.module.js';
import { ViewerModule } from './viewer/viewer.module.js';

@Module({})
export class AppModule {
  /** The whole API for one validated configuration (tests build it with their own). */
  static forConfig(config: ApiConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.with(config),
        // Infrastructure (global)
        PersistenceModule,
        RedisModule,
        TenancyCoreModule,
        AuditModule,
        InstanceSettingsModule,
        ModelModule,
        LeadershipModule,
        RealtimeModule.forRoot(AuthModule),
        // Features
        HealthModule,
        AccountsModule,
        AuthModule,
        WorkspacesModule,
        InvitationsModule,
        AgentsModule,
        ChatsModule,
        RunsModule,
        ComputersModule,
        TakeoverModule,
        ViewerModule,
        MemoryModule,
        VaultModule,
        CryptoModule,
        AdminModule,
        OpenApiModule,
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
