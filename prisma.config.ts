// Configuration of the Prisma CLI (generate, migrate). Prisma runs here with its JS schema engine over
// node-postgres, because no native engine can be downloaded on the machines LazyBoy targets.
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { defineConfig } from 'prisma/config';

type QueryResultLike = { fields?: Array<{ dataTypeID: number }> };

const PG_TYPE_CHAR = 18;
const PG_TYPE_NAME = 19;
const PG_TYPE_TEXT = 25;

// adapter-pg 6.19 cannot deserialize the `name` and `"char"` columns of the catalog queries migrate
// runs (prisma/orm#27403); they are plain text, so report them as such.
function textifyCatalogTypes<T>(result: T): T {
  const fields = (result as QueryResultLike | undefined)?.fields;
  if (Array.isArray(fields)) {
    for (const field of fields) {
      if (field.dataTypeID === PG_TYPE_NAME || field.dataTypeID === PG_TYPE_CHAR) field.dataTypeID = PG_TYPE_TEXT;
    }
  }
  return result;
}

class CatalogTextClient extends pg.Client {
  // pg's query() has a dozen overloads; this wrapper only post-processes whatever result comes back.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- forwards every overload unchanged
  override query(...args: any[]): any {
    const last = args.at(-1);
    if (typeof last === 'function') {
      args[args.length - 1] = (err: Error | null, res: unknown) => last(err, err ? res : textifyCatalogTypes(res));
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const ret = (super.query as (...a: unknown[]) => unknown)(...args);
    return ret instanceof Promise ? ret.then(textifyCatalogTypes) : ret;
  }
}

function poolConfig(database?: string): pg.PoolConfig {
  const raw = process.env.DATABASE_URL;
  if (!raw) throw new Error('DATABASE_URL is not set');
  const url = new URL(raw);
  // Separate fields, not a connectionString: with a connectionString adapter-pg's shadow database
  // silently becomes the main one.
  return {
    host: url.searchParams.get('host') ?? decodeURIComponent(url.hostname),
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: database ?? decodeURIComponent(url.pathname.slice(1)),
    Client: CatalogTextClient,
  };
}

class MigratePg extends PrismaPg {
  // The upstream shadow database is dropped while its pool is still connected; use a uniquely named
  // one and drop it WITH (FORCE) once its pool has closed.
  override async connectToShadowDb(): ReturnType<PrismaPg['connectToShadowDb']> {
    const admin = await new PrismaPg(poolConfig()).connect();
    const name = `lazyboy_shadow_${crypto.randomUUID().replaceAll('-', '')}`;
    await admin.executeScript(`CREATE DATABASE "${name}"`);
    const shadow = await new PrismaPg(poolConfig(name)).connect();
    const disposeShadow = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await disposeShadow();
      await admin.executeScript(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.dispose();
    };
    return shadow;
  }
}

export default defineConfig({
  schema: 'prisma/schema.prisma',
  experimental: { adapter: true },
  engine: 'js',
  adapter: async () => new MigratePg(poolConfig()),
});
