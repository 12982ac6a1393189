import { type FileHandle, open } from 'node:fs/promises';
import { ModelFileError } from '../../errors.js';

// llama.cpp reports a wrong path or a wrong file as "failed to load model", with the reason only in its
// log. Checking the file first gives the person who set modelPath an error that says what to fix.

const GGUF_MAGIC = Buffer.from('GGUF', 'ascii');
const PROVIDER = { provider: 'local-gguf' };

/** Throws ModelFileError unless `modelPath` is a readable file that starts like a GGUF file. */
export async function assertGgufFile(modelPath: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(modelPath, 'r');
  } catch (error) {
    throw unreadable(error, modelPath);
  }
  try {
    if ((await handle.stat()).isDirectory()) {
      throw new ModelFileError(`the GGUF path ${modelPath} is a directory, not a file`, modelPath, PROVIDER);
    }
    const { bytesRead, buffer } = await handle.read(Buffer.alloc(GGUF_MAGIC.length), 0, GGUF_MAGIC.length, 0);
    if (bytesRead < GGUF_MAGIC.length || !buffer.equals(GGUF_MAGIC)) {
      throw new ModelFileError(
        `the file ${modelPath} is not a GGUF model: it does not start with the GGUF signature`,
        modelPath,
        PROVIDER,
      );
    }
  } catch (error) {
    throw error instanceof ModelFileError ? error : unreadable(error, modelPath);
  } finally {
    await handle.close();
  }
}

function unreadable(error: unknown, modelPath: string): ModelFileError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message =
    code === 'ENOENT' || code === 'ENOTDIR'
      ? `the GGUF file ${modelPath} does not exist`
      : code === 'EACCES' || code === 'EPERM'
        ? `the GGUF file ${modelPath} cannot be read: permission denied`
        : code === 'EISDIR'
          ? `the GGUF path ${modelPath} is a directory, not a file`
          : `the GGUF file ${modelPath} cannot be read${code ? ` (${code})` : ''}`;
  return new ModelFileError(message, modelPath, { ...PROVIDER, cause: error });
}
