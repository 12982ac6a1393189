export default async function globalTeardown(): Promise<void> {
  await globalThis.__lazyboyTestServices?.stop();
  globalThis.__lazyboyTestServices = undefined;
}
