import path from 'node:path';
import type { Llama, LlamaModel } from 'node-llama-cpp';
import { LocalRuntimeError, ModelFileError } from '../../errors.js';
import { oneLine } from '../../http/message-text.js';
import { assertGgufFile } from './gguf-file.js';

// node-llama-cpp and its native addon are imported on first use only, so that processes that never run a
// local model do not pay for them. The llama.cpp runtime is then started once and kept for the life of
// the process: starting it takes about half a second (it probes its binary), it holds no memory to speak
// of, it does not keep the process alive (node-llama-cpp disposes it on 'beforeExit'), and a runtime
// started after another was disposed loses its log, which the messages below need. Models are what cost
// memory: one per GGUF file, shared by the clients using it (a real model's weights are gigabytes worth
// loading once) and freed when the last of them closes. Each client keeps its own context (its KV cache).

export type NodeLlamaCpp = typeof import('node-llama-cpp');

const PROVIDER = { provider: 'local-gguf' };

/** A value created on first acquire and destroyed on the last release. */
class Shared<T> {
  private value: Promise<T> | undefined;
  private users = 0;

  constructor(
    private readonly create: () => Promise<T>,
    private readonly destroy: (value: T) => Promise<void>,
  ) {}

  async acquire(): Promise<T> {
    this.users += 1;
    const value = (this.value ??= this.create());
    try {
      return await value;
    } catch (error) {
      this.users -= 1;
      // A failed creation is not cached: the next acquire tries again (the file may have been fixed).
      if (this.value === value) this.value = undefined;
      throw error;
    }
  }

  async release(): Promise<void> {
    this.users -= 1;
    const value = this.value;
    if (this.users > 0 || !value) return;
    this.value = undefined;
    await this.destroy(await value);
  }
}

/** llama.cpp explains load failures only in its log: the first error lines of a load are kept for our message. */
const recentLlamaErrors: string[] = [];
const MAX_KEPT_ERRORS = 5;

let runtime: Promise<{ lib: NodeLlamaCpp; llama: Llama }> | undefined;

/** The process's llama.cpp runtime, started on first use; a failed start is tried again next time. */
function startRuntime(): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  runtime ??= createRuntime().catch((error: unknown) => {
    runtime = undefined;
    throw error;
  });
  return runtime;
}

async function createRuntime(): Promise<{ lib: NodeLlamaCpp; llama: Llama }> {
  let lib: NodeLlamaCpp;
  try {
    lib = await import('node-llama-cpp');
  } catch (error) {
    throw new LocalRuntimeError(`node-llama-cpp could not be loaded: ${describeFailure(error)}`, { ...PROVIDER, cause: error });
  }
  try {
    const { LlamaLogLevel } = lib;
    const llama = await lib.getLlama({
      // CPU only, and only the prebuilt binary that came with the package: never probe GPUs, compile
      // llama.cpp or download anything at run time.
      gpu: false,
      build: 'never',
      usePrebuiltBinaries: true,
      progressLogs: false,
      logLevel: LlamaLogLevel.warn,
      logger: (level, message) => {
        if (level !== LlamaLogLevel.error && level !== LlamaLogLevel.fatal) return;
        if (recentLlamaErrors.length < MAX_KEPT_ERRORS) recentLlamaErrors.push(message.trim());
      },
    });
    return { lib, llama };
  } catch (error) {
    throw new LocalRuntimeError(`the llama.cpp runtime could not start: ${describeFailure(error)}`, {
      ...PROVIDER,
      cause: error,
    });
  }
}

export interface LoadedModel {
  lib: NodeLlamaCpp;
  llama: Llama;
  model: LlamaModel;
}

/** By absolute path; entries stay (a few bytes each) so that a path always maps to one Shared. */
const models = new Map<string, Shared<LoadedModel>>();

async function loadModel(modelPath: string, absolutePath: string): Promise<LoadedModel> {
  await assertGgufFile(modelPath);
  const { lib, llama } = await startRuntime();
  recentLlamaErrors.length = 0;
  try {
    return { lib, llama, model: await llama.loadModel({ modelPath: absolutePath, gpuLayers: 0 }) };
  } catch (error) {
    const reason = loadFailureReason(recentLlamaErrors) ?? error;
    throw new ModelFileError(
      `llama.cpp could not load the GGUF file ${modelPath}: ${describeFailure(reason, modelPath)}`,
      modelPath,
      { ...PROVIDER, cause: error },
    );
  }
}

/**
 * The first error llama.cpp logged while loading is the cause (later ones only say that loading failed),
 * without its "function_name: " prefixes: "unknown model architecture: 'x'".
 */
function loadFailureReason(lines: string[]): string | undefined {
  const [first] = lines;
  return first?.replace(/^(?:[a-z_][a-z0-9_]*: |error loading model: )+/, '');
}

/**
 * The model in `modelPath`, loaded or shared, with a function that gives it back (the last user's call
 * frees it): call that once. Throws ModelFileError or LocalRuntimeError.
 */
export async function acquireModel(modelPath: string): Promise<LoadedModel & { release: () => Promise<void> }> {
  const absolutePath = path.resolve(modelPath);
  let shared = models.get(absolutePath);
  if (!shared) {
    shared = new Shared(
      () => loadModel(modelPath, absolutePath),
      ({ model }) => model.dispose(),
    );
    models.set(absolutePath, shared);
  }
  const owner = shared;
  return { ...(await owner.acquire()), release: () => owner.release() };
}

/**
 * An error (or a message) of node-llama-cpp or llama.cpp as one short line, without file paths other than
 * the model's: the library's messages may name its own files, which mean nothing to the person reading ours.
 */
export function describeFailure(error: unknown, modelPath?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const parts = modelPath ? message.split(modelPath) : [message];
  const hidden = parts.map((part) => part.replace(/(?:[A-Za-z]:)?(?:[\\/][^\s\\/'"`:;,()]+){2,}[\\/]?/g, '<path>'));
  return oneLine(hidden.join(modelPath ?? ''), 200) || 'unknown error';
}
